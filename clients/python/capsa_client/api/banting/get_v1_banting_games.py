from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.game_list import GameList
from ...models.get_v1_banting_games_status import (
    GetV1BantingGamesStatus,
)
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    cursor: str | Unset = UNSET,
    status: GetV1BantingGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 20,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cursor"] = cursor

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params["table"] = table

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/banting/games",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> GameList | Problem:
    if response.status_code == 200:
        response_200 = GameList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[GameList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    status: GetV1BantingGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 20,
) -> Response[GameList | Problem]:
    """List this client's games (their states), newest first, by status and table, in pages.

     Each game is shown as a GET of it answers, its due auto moves played first, for at
    most 10 games a page: a page holding more ends before the next one, with fewer items
    than `limit` and a `next_cursor` that resumes there. Playing them takes one of the
    client's heavy-read slots; while it holds both, the games are shown as stored (and a
    page of `status=finished`, which would leave out the games those turns finish, is
    429 `rate-limited`).

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1BantingGamesStatus | Unset):  Example: playing.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 20. Example: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameList | Problem]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        status=status,
        table=table,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    status: GetV1BantingGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 20,
) -> GameList | Problem | None:
    """List this client's games (their states), newest first, by status and table, in pages.

     Each game is shown as a GET of it answers, its due auto moves played first, for at
    most 10 games a page: a page holding more ends before the next one, with fewer items
    than `limit` and a `next_cursor` that resumes there. Playing them takes one of the
    client's heavy-read slots; while it holds both, the games are shown as stored (and a
    page of `status=finished`, which would leave out the games those turns finish, is
    429 `rate-limited`).

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1BantingGamesStatus | Unset):  Example: playing.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 20. Example: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameList | Problem
    """

    return sync_detailed(
        client=client,
        cursor=cursor,
        status=status,
        table=table,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    status: GetV1BantingGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 20,
) -> Response[GameList | Problem]:
    """List this client's games (their states), newest first, by status and table, in pages.

     Each game is shown as a GET of it answers, its due auto moves played first, for at
    most 10 games a page: a page holding more ends before the next one, with fewer items
    than `limit` and a `next_cursor` that resumes there. Playing them takes one of the
    client's heavy-read slots; while it holds both, the games are shown as stored (and a
    page of `status=finished`, which would leave out the games those turns finish, is
    429 `rate-limited`).

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1BantingGamesStatus | Unset):  Example: playing.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 20. Example: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GameList | Problem]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        status=status,
        table=table,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    status: GetV1BantingGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 20,
) -> GameList | Problem | None:
    """List this client's games (their states), newest first, by status and table, in pages.

     Each game is shown as a GET of it answers, its due auto moves played first, for at
    most 10 games a page: a page holding more ends before the next one, with fewer items
    than `limit` and a `next_cursor` that resumes there. Playing them takes one of the
    client's heavy-read slots; while it holds both, the games are shown as stored (and a
    page of `status=finished`, which would leave out the games those turns finish, is
    429 `rate-limited`).

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1BantingGamesStatus | Unset):  Example: playing.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 20. Example: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GameList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            cursor=cursor,
            status=status,
            table=table,
            limit=limit,
        )
    ).parsed
