from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.submission import Submission
from ...models.submission_request import SubmissionRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    game_id: str,
    player: str,
    *,
    body: SubmissionRequest,
    if_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v1/susun/games/{game_id}/arrangements/{player}".format(
            game_id=quote(str(game_id), safe=""),
            player=quote(str(player), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Submission:
    if response.status_code == 200:
        response_200 = Submission.from_dict(response.json())

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

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())

        return response_412

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | Submission]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    game_id: str,
    player: str,
    *,
    client: AuthenticatedClient | Client,
    body: SubmissionRequest,
    if_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | Submission]:
    """Set a player's rows (or surrender); the answer is their evaluation at once.

     The rows must use exactly the player's dealt cards (else 422 `invalid-cards`); a
    foul is accepted, and evaluated as one. A player may replace its rows until the game
    settles; after that (or after the deadline) it is 409. `{"surrender": true}` only
    where the rules allow surrender. The last player's submission settles the game and
    answers its `round`.

    Args:
        game_id (str):
        player (str):
        if_match (str | Unset):
        idempotency_key (str | Unset):
        body (SubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Submission]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        player=player,
        body=body,
        if_match=if_match,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    game_id: str,
    player: str,
    *,
    client: AuthenticatedClient | Client,
    body: SubmissionRequest,
    if_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Problem | Submission | None:
    """Set a player's rows (or surrender); the answer is their evaluation at once.

     The rows must use exactly the player's dealt cards (else 422 `invalid-cards`); a
    foul is accepted, and evaluated as one. A player may replace its rows until the game
    settles; after that (or after the deadline) it is 409. `{"surrender": true}` only
    where the rules allow surrender. The last player's submission settles the game and
    answers its `round`.

    Args:
        game_id (str):
        player (str):
        if_match (str | Unset):
        idempotency_key (str | Unset):
        body (SubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Submission
    """

    return sync_detailed(
        game_id=game_id,
        player=player,
        client=client,
        body=body,
        if_match=if_match,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    player: str,
    *,
    client: AuthenticatedClient | Client,
    body: SubmissionRequest,
    if_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | Submission]:
    """Set a player's rows (or surrender); the answer is their evaluation at once.

     The rows must use exactly the player's dealt cards (else 422 `invalid-cards`); a
    foul is accepted, and evaluated as one. A player may replace its rows until the game
    settles; after that (or after the deadline) it is 409. `{"surrender": true}` only
    where the rules allow surrender. The last player's submission settles the game and
    answers its `round`.

    Args:
        game_id (str):
        player (str):
        if_match (str | Unset):
        idempotency_key (str | Unset):
        body (SubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Submission]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        player=player,
        body=body,
        if_match=if_match,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    player: str,
    *,
    client: AuthenticatedClient | Client,
    body: SubmissionRequest,
    if_match: str | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Problem | Submission | None:
    """Set a player's rows (or surrender); the answer is their evaluation at once.

     The rows must use exactly the player's dealt cards (else 422 `invalid-cards`); a
    foul is accepted, and evaluated as one. A player may replace its rows until the game
    settles; after that (or after the deadline) it is 409. `{"surrender": true}` only
    where the rules allow surrender. The last player's submission settles the game and
    answers its `round`.

    Args:
        game_id (str):
        player (str):
        if_match (str | Unset):
        idempotency_key (str | Unset):
        body (SubmissionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Submission
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            player=player,
            client=client,
            body=body,
            if_match=if_match,
            idempotency_key=idempotency_key,
        )
    ).parsed
