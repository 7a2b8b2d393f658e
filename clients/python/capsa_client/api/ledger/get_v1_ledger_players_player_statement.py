import datetime
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.statement import Statement
from ...types import UNSET, Response, Unset


def _get_kwargs(
    player: str,
    *,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["currency"] = currency

    json_since: str | Unset = UNSET
    if not isinstance(since, Unset):
        json_since = since.isoformat()
    params["since"] = json_since

    json_until: str | Unset = UNSET
    if not isinstance(until, Unset):
        json_until = until.isoformat()
    params["until"] = json_until

    params["tz"] = tz

    params["min_sequence"] = min_sequence

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/ledger/players/{player}/statement".format(
            player=quote(str(player), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Statement:
    if response.status_code == 200:
        response_200 = Statement.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Statement]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    player: str,
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[Problem | Statement]:
    """A player's statement: opening balance, the period's lines, closing balance.

     The opening balance sums every line of the player's account dated before `since`;
    the closing balance adds every line of the period. JSON pages the lines (oldest
    first, each with the balance after it) with `limit` and `cursor`. `Accept: text/csv`
    streams the period between an `opening_balance` and a `closing_balance` row, at most
    100,000 lines an answer (`limit` does not apply): when more remain, the answer closes
    with a `carried_forward` row instead, and a `Link: <...&cursor=...>; rel="next"`
    header names the next answer, which opens with that balance `brought_forward`.

    Args:
        player (str):
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        limit (int | Unset):  Default: 100. Example: 100.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Statement]
    """

    kwargs = _get_kwargs(
        player=player,
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    player: str,
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Problem | Statement | None:
    """A player's statement: opening balance, the period's lines, closing balance.

     The opening balance sums every line of the player's account dated before `since`;
    the closing balance adds every line of the period. JSON pages the lines (oldest
    first, each with the balance after it) with `limit` and `cursor`. `Accept: text/csv`
    streams the period between an `opening_balance` and a `closing_balance` row, at most
    100,000 lines an answer (`limit` does not apply): when more remain, the answer closes
    with a `carried_forward` row instead, and a `Link: <...&cursor=...>; rel="next"`
    header names the next answer, which opens with that balance `brought_forward`.

    Args:
        player (str):
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        limit (int | Unset):  Default: 100. Example: 100.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Statement
    """

    return sync_detailed(
        player=player,
        client=client,
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    player: str,
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Response[Problem | Statement]:
    """A player's statement: opening balance, the period's lines, closing balance.

     The opening balance sums every line of the player's account dated before `since`;
    the closing balance adds every line of the period. JSON pages the lines (oldest
    first, each with the balance after it) with `limit` and `cursor`. `Accept: text/csv`
    streams the period between an `opening_balance` and a `closing_balance` row, at most
    100,000 lines an answer (`limit` does not apply): when more remain, the answer closes
    with a `carried_forward` row instead, and a `Link: <...&cursor=...>; rel="next"`
    header names the next answer, which opens with that balance `brought_forward`.

    Args:
        player (str):
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        limit (int | Unset):  Default: 100. Example: 100.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Statement]
    """

    kwargs = _get_kwargs(
        player=player,
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    player: str,
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    limit: int | Unset = 100,
    cursor: str | Unset = UNSET,
) -> Problem | Statement | None:
    """A player's statement: opening balance, the period's lines, closing balance.

     The opening balance sums every line of the player's account dated before `since`;
    the closing balance adds every line of the period. JSON pages the lines (oldest
    first, each with the balance after it) with `limit` and `cursor`. `Accept: text/csv`
    streams the period between an `opening_balance` and a `closing_balance` row, at most
    100,000 lines an answer (`limit` does not apply): when more remain, the answer closes
    with a `carried_forward` row instead, and a `Link: <...&cursor=...>; rel="next"`
    header names the next answer, which opens with that balance `brought_forward`.

    Args:
        player (str):
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        limit (int | Unset):  Default: 100. Example: 100.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Statement
    """

    return (
        await asyncio_detailed(
            player=player,
            client=client,
            currency=currency,
            since=since,
            until=until,
            tz=tz,
            min_sequence=min_sequence,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
