import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.entry_list import EntryList
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    player: str | Unset = UNSET,
    round_: str | Unset = UNSET,
    limit: int | Unset = 50,
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

    params["player"] = player

    params["round"] = round_

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/ledger/entries",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EntryList | Problem:
    if response.status_code == 200:
        response_200 = EntryList.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EntryList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    player: str | Unset = UNSET,
    round_: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[EntryList | Problem]:
    """Ledger lines, newest first by (created_at, id); `Accept: text/csv` streams CSV.

     JSON pages with `limit` and an opaque `cursor`. With `Accept: text/csv` the answer is
    CSV (columns round, sequence, created_at, account, kind, amount, currency, a header
    row) carrying the matching lines from `cursor` on, streamed, at most 100,000 of them
    (`limit` does not apply): when more remain, a `Link: <...&cursor=...>; rel="next"`
    header names the next answer's URL.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        player (str | Unset):  Example: a.
        round_ (str | Unset):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntryList | Problem]
    """

    kwargs = _get_kwargs(
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        player=player,
        round_=round_,
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
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    player: str | Unset = UNSET,
    round_: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> EntryList | Problem | None:
    """Ledger lines, newest first by (created_at, id); `Accept: text/csv` streams CSV.

     JSON pages with `limit` and an opaque `cursor`. With `Accept: text/csv` the answer is
    CSV (columns round, sequence, created_at, account, kind, amount, currency, a header
    row) carrying the matching lines from `cursor` on, streamed, at most 100,000 of them
    (`limit` does not apply): when more remain, a `Link: <...&cursor=...>; rel="next"`
    header names the next answer's URL.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        player (str | Unset):  Example: a.
        round_ (str | Unset):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntryList | Problem
    """

    return sync_detailed(
        client=client,
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        player=player,
        round_=round_,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    player: str | Unset = UNSET,
    round_: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> Response[EntryList | Problem]:
    """Ledger lines, newest first by (created_at, id); `Accept: text/csv` streams CSV.

     JSON pages with `limit` and an opaque `cursor`. With `Accept: text/csv` the answer is
    CSV (columns round, sequence, created_at, account, kind, amount, currency, a header
    row) carrying the matching lines from `cursor` on, streamed, at most 100,000 of them
    (`limit` does not apply): when more remain, a `Link: <...&cursor=...>; rel="next"`
    header names the next answer's URL.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        player (str | Unset):  Example: a.
        round_ (str | Unset):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EntryList | Problem]
    """

    kwargs = _get_kwargs(
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        player=player,
        round_=round_,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    player: str | Unset = UNSET,
    round_: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
) -> EntryList | Problem | None:
    """Ledger lines, newest first by (created_at, id); `Accept: text/csv` streams CSV.

     JSON pages with `limit` and an opaque `cursor`. With `Accept: text/csv` the answer is
    CSV (columns round, sequence, created_at, account, kind, amount, currency, a header
    row) carrying the matching lines from `cursor` on, streamed, at most 100,000 of them
    (`limit` does not apply): when more remain, a `Link: <...&cursor=...>; rel="next"`
    header names the next answer's URL.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        player (str | Unset):  Example: a.
        round_ (str | Unset):  Example: rnd_01JDQ8V6R3X5M2N7P9K4T1W0YZ.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiw0Ml0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EntryList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            currency=currency,
            since=since,
            until=until,
            tz=tz,
            min_sequence=min_sequence,
            player=player,
            round_=round_,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
