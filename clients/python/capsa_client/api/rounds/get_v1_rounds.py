import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.round_list import RoundList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    table: str | Unset = UNSET,
    player: str | Unset = UNSET,
    reference: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["table"] = table

    params["player"] = player

    params["reference"] = reference

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/rounds",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RoundList:
    if response.status_code == 200:
        response_200 = RoundList.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | RoundList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    table: str | Unset = UNSET,
    player: str | Unset = UNSET,
    reference: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[Problem | RoundList]:
    """List this client's rounds, newest first, filtered, in pages.

    Args:
        table (str | Unset):  Example: table-7.
        player (str | Unset):  Example: a.
        reference (str | Unset):  Example: client-round-9912.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwicm5kXzAxSiJd.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundList]
    """

    kwargs = _get_kwargs(
        table=table,
        player=player,
        reference=reference,
        since=since,
        until=until,
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
    table: str | Unset = UNSET,
    player: str | Unset = UNSET,
    reference: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Problem | RoundList | None:
    """List this client's rounds, newest first, filtered, in pages.

    Args:
        table (str | Unset):  Example: table-7.
        player (str | Unset):  Example: a.
        reference (str | Unset):  Example: client-round-9912.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwicm5kXzAxSiJd.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundList
    """

    return sync_detailed(
        client=client,
        table=table,
        player=player,
        reference=reference,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    table: str | Unset = UNSET,
    player: str | Unset = UNSET,
    reference: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[Problem | RoundList]:
    """List this client's rounds, newest first, filtered, in pages.

    Args:
        table (str | Unset):  Example: table-7.
        player (str | Unset):  Example: a.
        reference (str | Unset):  Example: client-round-9912.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwicm5kXzAxSiJd.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundList]
    """

    kwargs = _get_kwargs(
        table=table,
        player=player,
        reference=reference,
        since=since,
        until=until,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    table: str | Unset = UNSET,
    player: str | Unset = UNSET,
    reference: str | Unset = UNSET,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Problem | RoundList | None:
    """List this client's rounds, newest first, filtered, in pages.

    Args:
        table (str | Unset):  Example: table-7.
        player (str | Unset):  Example: a.
        reference (str | Unset):  Example: client-round-9912.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwicm5kXzAxSiJd.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundList
    """

    return (
        await asyncio_detailed(
            client=client,
            table=table,
            player=player,
            reference=reference,
            since=since,
            until=until,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
