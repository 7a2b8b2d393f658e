from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.match import Match
from ...models.match_request import MatchRequest
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: MatchRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/banting/matches",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Match | Problem:
    if response.status_code == 201:
        response_201 = Match.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Match | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: MatchRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Match | Problem]:
    """Start a match: games of these players under one rule set until one reaches `target_points`.

     Each game of the match is started with `POST /v1/banting/matches/{id}/games`, played
    with the moves endpoint and stored as its own round; its points (each player's real
    loss: cards left x multiplier, after a bomb or a taker of all losses as the rules say;
    0 for the winner) add to the players' totals, unless its round is voided. Lowest
    total wins.

    Args:
        idempotency_key (str | Unset):
        body (MatchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Match | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: MatchRequest,
    idempotency_key: str | Unset = UNSET,
) -> Match | Problem | None:
    """Start a match: games of these players under one rule set until one reaches `target_points`.

     Each game of the match is started with `POST /v1/banting/matches/{id}/games`, played
    with the moves endpoint and stored as its own round; its points (each player's real
    loss: cards left x multiplier, after a bomb or a taker of all losses as the rules say;
    0 for the winner) add to the players' totals, unless its round is voided. Lowest
    total wins.

    Args:
        idempotency_key (str | Unset):
        body (MatchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Match | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: MatchRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Match | Problem]:
    """Start a match: games of these players under one rule set until one reaches `target_points`.

     Each game of the match is started with `POST /v1/banting/matches/{id}/games`, played
    with the moves endpoint and stored as its own round; its points (each player's real
    loss: cards left x multiplier, after a bomb or a taker of all losses as the rules say;
    0 for the winner) add to the players' totals, unless its round is voided. Lowest
    total wins.

    Args:
        idempotency_key (str | Unset):
        body (MatchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Match | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: MatchRequest,
    idempotency_key: str | Unset = UNSET,
) -> Match | Problem | None:
    """Start a match: games of these players under one rule set until one reaches `target_points`.

     Each game of the match is started with `POST /v1/banting/matches/{id}/games`, played
    with the moves endpoint and stored as its own round; its points (each player's real
    loss: cards left x multiplier, after a bomb or a taker of all losses as the rules say;
    0 for the winner) add to the players' totals, unless its round is voided. Lowest
    total wins.

    Args:
        idempotency_key (str | Unset):
        body (MatchRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Match | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
