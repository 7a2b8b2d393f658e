from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.hint import Hint
from ...models.hint_request import HintRequest
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    game_id: str,
    *,
    body: HintRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/banting/games/{game_id}/hint".format(
            game_id=quote(str(game_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Hint | Problem:
    if response.status_code == 200:
        response_200 = Hint.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    response_default = Problem.from_dict(response.json())

    return response_default


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Hint | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: HintRequest,
) -> Response[Hint | Problem]:
    """A good legal move for the player in turn, from its own cards; nothing is stored.

     The answer's `move` is a move body to post as it is. The heuristic sees only that
    player's cards, the table and the counts of cards left (docs/rules.md, "The hint
    heuristic"); each candidate play is checked by the referee, so the hint is always
    legal under the game's rules. A write key is needed: a hint discloses cards of a
    game in play, which the state never shows (read keys see hands only in stored
    rounds). Auto moves that were due are applied first. A player not in turn is 422
    `illegal-move` (not your turn, or turn timed out); a finished game is 409.

    Args:
        game_id (str):
        body (HintRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Hint | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    game_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: HintRequest,
) -> Hint | Problem | None:
    """A good legal move for the player in turn, from its own cards; nothing is stored.

     The answer's `move` is a move body to post as it is. The heuristic sees only that
    player's cards, the table and the counts of cards left (docs/rules.md, "The hint
    heuristic"); each candidate play is checked by the referee, so the hint is always
    legal under the game's rules. A write key is needed: a hint discloses cards of a
    game in play, which the state never shows (read keys see hands only in stored
    rounds). Auto moves that were due are applied first. A player not in turn is 422
    `illegal-move` (not your turn, or turn timed out); a finished game is 409.

    Args:
        game_id (str):
        body (HintRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Hint | Problem
    """

    return sync_detailed(
        game_id=game_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: HintRequest,
) -> Response[Hint | Problem]:
    """A good legal move for the player in turn, from its own cards; nothing is stored.

     The answer's `move` is a move body to post as it is. The heuristic sees only that
    player's cards, the table and the counts of cards left (docs/rules.md, "The hint
    heuristic"); each candidate play is checked by the referee, so the hint is always
    legal under the game's rules. A write key is needed: a hint discloses cards of a
    game in play, which the state never shows (read keys see hands only in stored
    rounds). Auto moves that were due are applied first. A player not in turn is 422
    `illegal-move` (not your turn, or turn timed out); a finished game is 409.

    Args:
        game_id (str):
        body (HintRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Hint | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: HintRequest,
) -> Hint | Problem | None:
    """A good legal move for the player in turn, from its own cards; nothing is stored.

     The answer's `move` is a move body to post as it is. The heuristic sees only that
    player's cards, the table and the counts of cards left (docs/rules.md, "The hint
    heuristic"); each candidate play is checked by the referee, so the hint is always
    legal under the game's rules. A write key is needed: a hint discloses cards of a
    game in play, which the state never shows (read keys see hands only in stored
    rounds). Auto moves that were due are applied first. A player not in turn is 422
    `illegal-move` (not your turn, or turn timed out); a finished game is 409.

    Args:
        game_id (str):
        body (HintRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Hint | Problem
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            client=client,
            body=body,
        )
    ).parsed
