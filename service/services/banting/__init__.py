"""Capsa Banting (Big Two) over HTTP, by what each module holds:

- `games`: the game lifecycle: evaluate a play, create or start a game, get, list, a
  player's hand, a hint, a move;
- `timers`: the turn timers: overdue turns, the catch-up on access, the sweeper's pass;
- `store`: a stored game found, replayed and saved with its moves (the referee is
  `service.domain.banting`; the stored form of a move is the domain's `MadeMove`);
- `recording`: a finished game as a round: its request, its scoring and re-scoring, its
  chain record;
- `matches`: matches, whose games are started here and which listen to them finishing.

A match hears that one of its games has finished through `store.on_finished`, subscribed
here, so the game modules never import the matches (whichever path ends the game: a move,
a catch-up, the sweeper); and that a game's round was voided through `voids.on_voided`.
"""

from __future__ import annotations

from service.services.banting import matches, store
from service.services.rounds import voids

store.on_finished(matches.game_finished)
voids.on_voided(matches.of_a_match, matches.game_voided)
