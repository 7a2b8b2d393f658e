from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.banting_hand import BantingHand
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    game_id: str,
    player: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/banting/games/{game_id}/hands/{player}".format(
            game_id=quote(str(game_id), safe=""),
            player=quote(str(player), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> BantingHand | Problem:
    if response.status_code == 200:
        response_200 = BantingHand.from_dict(response.json())

        return response_200

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
) -> Response[BantingHand | Problem]:
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
) -> Response[BantingHand | Problem]:
    """One player's cards held now, for the game server to relay to that player alone.

     A write key is needed (a read key is 403): the state shows only `cards_left`, and a
    game's hands are never answered elsewhere while it is in play. Auto moves that were
    due are applied first.

    Args:
        game_id (str):
        player (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BantingHand | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        player=player,
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
) -> BantingHand | Problem | None:
    """One player's cards held now, for the game server to relay to that player alone.

     A write key is needed (a read key is 403): the state shows only `cards_left`, and a
    game's hands are never answered elsewhere while it is in play. Auto moves that were
    due are applied first.

    Args:
        game_id (str):
        player (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BantingHand | Problem
    """

    return sync_detailed(
        game_id=game_id,
        player=player,
        client=client,
    ).parsed


async def asyncio_detailed(
    game_id: str,
    player: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[BantingHand | Problem]:
    """One player's cards held now, for the game server to relay to that player alone.

     A write key is needed (a read key is 403): the state shows only `cards_left`, and a
    game's hands are never answered elsewhere while it is in play. Auto moves that were
    due are applied first.

    Args:
        game_id (str):
        player (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BantingHand | Problem]
    """

    kwargs = _get_kwargs(
        game_id=game_id,
        player=player,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    game_id: str,
    player: str,
    *,
    client: AuthenticatedClient | Client,
) -> BantingHand | Problem | None:
    """One player's cards held now, for the game server to relay to that player alone.

     A write key is needed (a read key is 403): the state shows only `cards_left`, and a
    game's hands are never answered elsewhere while it is in play. Auto moves that were
    due are applied first.

    Args:
        game_id (str):
        player (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BantingHand | Problem
    """

    return (
        await asyncio_detailed(
            game_id=game_id,
            player=player,
            client=client,
        )
    ).parsed
