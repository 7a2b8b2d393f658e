from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.get_v1_susun_games_status import (
    GetV1SusunGamesStatus,
)
from ...models.problem import Problem
from ...models.susun_game_list import SusunGameList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: GetV1SusunGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params["table"] = table

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/susun/games",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SusunGameList:
    if response.status_code == 200:
        response_200 = SusunGameList.from_dict(response.json())

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SusunGameList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: GetV1SusunGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[Problem | SusunGameList]:
    """List this client's games, newest first, by `status` and `table`, in pages.

     Overdue games on a page settle first, at most 10 a page: a page holding more ends
    before the next one, with fewer items than `limit` and a `next_cursor` that resumes
    there. Settling them takes one of the client's heavy-read slots; while it holds both,
    the games are shown as stored (and a page of `status=settled`, which would leave out
    the games settling them would add, is 429 `rate-limited`).

    Args:
        status (GetV1SusunGamesStatus | Unset):  Example: arranging.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SusunGameList]
    """

    kwargs = _get_kwargs(
        status=status,
        table=table,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    status: GetV1SusunGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Problem | SusunGameList | None:
    """List this client's games, newest first, by `status` and `table`, in pages.

     Overdue games on a page settle first, at most 10 a page: a page holding more ends
    before the next one, with fewer items than `limit` and a `next_cursor` that resumes
    there. Settling them takes one of the client's heavy-read slots; while it holds both,
    the games are shown as stored (and a page of `status=settled`, which would leave out
    the games settling them would add, is 429 `rate-limited`).

    Args:
        status (GetV1SusunGamesStatus | Unset):  Example: arranging.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SusunGameList
    """

    return sync_detailed(
        client=client,
        status=status,
        table=table,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: GetV1SusunGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[Problem | SusunGameList]:
    """List this client's games, newest first, by `status` and `table`, in pages.

     Overdue games on a page settle first, at most 10 a page: a page holding more ends
    before the next one, with fewer items than `limit` and a `next_cursor` that resumes
    there. Settling them takes one of the client's heavy-read slots; while it holds both,
    the games are shown as stored (and a page of `status=settled`, which would leave out
    the games settling them would add, is 429 `rate-limited`).

    Args:
        status (GetV1SusunGamesStatus | Unset):  Example: arranging.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SusunGameList]
    """

    kwargs = _get_kwargs(
        status=status,
        table=table,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    status: GetV1SusunGamesStatus | Unset = UNSET,
    table: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Problem | SusunGameList | None:
    """List this client's games, newest first, by `status` and `table`, in pages.

     Overdue games on a page settle first, at most 10 a page: a page holding more ends
    before the next one, with fewer items than `limit` and a `next_cursor` that resumes
    there. Settling them takes one of the client's heavy-read slots; while it holds both,
    the games are shown as stored (and a page of `status=settled`, which would leave out
    the games settling them would add, is 429 `rate-limited`).

    Args:
        status (GetV1SusunGamesStatus | Unset):  Example: arranging.
        table (str | Unset):  Example: table-7.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SusunGameList
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
            table=table,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
