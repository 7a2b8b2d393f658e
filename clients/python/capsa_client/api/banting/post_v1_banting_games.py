from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.game_request import GameRequest
from ...models.game_state import GameState
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: GameRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/banting/games",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> GameState | Problem:
    if response.status_code == 201:
        response_201 = GameState.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[GameState | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: GameRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[GameState | Problem]:
    """Start a game with the players' hands, or with a deal (its players, in its order).

     The holder of the lowest dealt card leads, and the first play must contain it.
    Hands are kept by the service and never shown in the state. With `turn_seconds`
    the game is timed: a player still in turn at its `deadline` is played for (a pass
    where the rules allow one, otherwise the hint's move), marked `auto: true`. The
    service makes those moves on the next access to the game (a GET, a move or a
    hint), each dated at its deadline, so no client has to poll at the deadline.

    Args:
        idempotency_key (str | Unset):
        body (GameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameState | Problem]
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
    body: GameRequest,
    idempotency_key: str | Unset = UNSET,
) -> GameState | Problem | None:
    """Start a game with the players' hands, or with a deal (its players, in its order).

     The holder of the lowest dealt card leads, and the first play must contain it.
    Hands are kept by the service and never shown in the state. With `turn_seconds`
    the game is timed: a player still in turn at its `deadline` is played for (a pass
    where the rules allow one, otherwise the hint's move), marked `auto: true`. The
    service makes those moves on the next access to the game (a GET, a move or a
    hint), each dated at its deadline, so no client has to poll at the deadline.

    Args:
        idempotency_key (str | Unset):
        body (GameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameState | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: GameRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[GameState | Problem]:
    """Start a game with the players' hands, or with a deal (its players, in its order).

     The holder of the lowest dealt card leads, and the first play must contain it.
    Hands are kept by the service and never shown in the state. With `turn_seconds`
    the game is timed: a player still in turn at its `deadline` is played for (a pass
    where the rules allow one, otherwise the hint's move), marked `auto: true`. The
    service makes those moves on the next access to the game (a GET, a move or a
    hint), each dated at its deadline, so no client has to poll at the deadline.

    Args:
        idempotency_key (str | Unset):
        body (GameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameState | Problem]
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
    body: GameRequest,
    idempotency_key: str | Unset = UNSET,
) -> GameState | Problem | None:
    """Start a game with the players' hands, or with a deal (its players, in its order).

     The holder of the lowest dealt card leads, and the first play must contain it.
    Hands are kept by the service and never shown in the state. With `turn_seconds`
    the game is timed: a player still in turn at its `deadline` is played for (a pass
    where the rules allow one, otherwise the hint's move), marked `auto: true`. The
    service makes those moves on the next access to the game (a GET, a move or a
    hint), each dated at its deadline, so no client has to poll at the deadline.

    Args:
        idempotency_key (str | Unset):
        body (GameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameState | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
