from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.susun_game import SusunGame
from ...models.susun_game_request import SusunGameRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SusunGameRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/susun/games",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SusunGame:
    if response.status_code == 201:
        response_201 = SusunGame.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | SusunGame]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SusunGameRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | SusunGame]:
    """Deal a game and open its arrangement phase until `deadline`.

     Without `deal` the service makes a provably fair deal for it (as POST /v1/deals
    does, with `client_seed`); either way the deal is used by the game. Each player's
    13 cards are at `/hands/{player}`; the game settles when every player has
    submitted or at the deadline, whichever comes first, and becomes a round.

    Args:
        idempotency_key (str | Unset):
        body (SusunGameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SusunGame]
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
    body: SusunGameRequest,
    idempotency_key: str | Unset = UNSET,
) -> Problem | SusunGame | None:
    """Deal a game and open its arrangement phase until `deadline`.

     Without `deal` the service makes a provably fair deal for it (as POST /v1/deals
    does, with `client_seed`); either way the deal is used by the game. Each player's
    13 cards are at `/hands/{player}`; the game settles when every player has
    submitted or at the deadline, whichever comes first, and becomes a round.

    Args:
        idempotency_key (str | Unset):
        body (SusunGameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SusunGame
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SusunGameRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | SusunGame]:
    """Deal a game and open its arrangement phase until `deadline`.

     Without `deal` the service makes a provably fair deal for it (as POST /v1/deals
    does, with `client_seed`); either way the deal is used by the game. Each player's
    13 cards are at `/hands/{player}`; the game settles when every player has
    submitted or at the deadline, whichever comes first, and becomes a round.

    Args:
        idempotency_key (str | Unset):
        body (SusunGameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SusunGame]
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
    body: SusunGameRequest,
    idempotency_key: str | Unset = UNSET,
) -> Problem | SusunGame | None:
    """Deal a game and open its arrangement phase until `deadline`.

     Without `deal` the service makes a provably fair deal for it (as POST /v1/deals
    does, with `client_seed`); either way the deal is used by the game. Each player's
    13 cards are at `/hands/{player}`; the game settles when every player has
    submitted or at the deadline, whichever comes first, and becomes a round.

    Args:
        idempotency_key (str | Unset):
        body (SusunGameRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SusunGame
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
