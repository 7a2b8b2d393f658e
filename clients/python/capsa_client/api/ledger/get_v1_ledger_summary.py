import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.get_v1_ledger_summary_group_by import (
    GetV1LedgerSummaryGroupBy,
)
from ...models.problem import Problem
from ...models.summary import Summary
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    group_by: GetV1LedgerSummaryGroupBy | Unset = "player",
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

    json_group_by: str | Unset = UNSET
    if not isinstance(group_by, Unset):
        json_group_by = group_by

    params["group_by"] = json_group_by

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/ledger/summary",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Summary:
    if response.status_code == 200:
        response_200 = Summary.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Summary]:
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
    group_by: GetV1LedgerSummaryGroupBy | Unset = "player",
) -> Response[Problem | Summary]:
    """Totals per player, table or day (in `tz`, UTC by default) over the lines dated in the period.

     Each row sums the players' lines of its group; `house_fee` sums the house's fee lines (less
    reversals) of the period. By table or day, `rounds` counts rounds booked (+1) and reversed (-1).

    Over a period (`since` or `until`) the lines are summed in full: a heavy read (see rate limits); all
    time reads the kept totals. All time by day in a zone whose days are not kept gathers them from the
    quarter hours: a heavy read too (the first such read keeps the zone's days, for up to 8 zones a
    currency).

    How a period is counted: a report sums the ledger lines *dated* in [since, until). A
    round's lines are dated at the round's `created_at`; a void's reversal lines at the void.
    So a round voided in a later period still counts in its own period and its reversal in the
    later one; over all time a voided round nets to zero.

    - `rounds`: +1 per settlement line (a player's part in a round), -1 per reversal of one.
    - `points`: the player's points on each settlement line, negated on its reversal.
    - `result`: the sum of settlement lines and their reversals.
    - `winnings`: the player's winnings (sum of its positive pair amounts) on each
      settlement line, negated on its reversal.
    - `fees`: the fees the player paid (fee lines, negated to a positive figure), less
      their reversals.
    - `net`: the sum of every line of the player's account: `result - fees`.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        group_by (GetV1LedgerSummaryGroupBy | Unset):  Default: 'player'. Example: player.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Summary]
    """

    kwargs = _get_kwargs(
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        group_by=group_by,
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
    group_by: GetV1LedgerSummaryGroupBy | Unset = "player",
) -> Problem | Summary | None:
    """Totals per player, table or day (in `tz`, UTC by default) over the lines dated in the period.

     Each row sums the players' lines of its group; `house_fee` sums the house's fee lines (less
    reversals) of the period. By table or day, `rounds` counts rounds booked (+1) and reversed (-1).

    Over a period (`since` or `until`) the lines are summed in full: a heavy read (see rate limits); all
    time reads the kept totals. All time by day in a zone whose days are not kept gathers them from the
    quarter hours: a heavy read too (the first such read keeps the zone's days, for up to 8 zones a
    currency).

    How a period is counted: a report sums the ledger lines *dated* in [since, until). A
    round's lines are dated at the round's `created_at`; a void's reversal lines at the void.
    So a round voided in a later period still counts in its own period and its reversal in the
    later one; over all time a voided round nets to zero.

    - `rounds`: +1 per settlement line (a player's part in a round), -1 per reversal of one.
    - `points`: the player's points on each settlement line, negated on its reversal.
    - `result`: the sum of settlement lines and their reversals.
    - `winnings`: the player's winnings (sum of its positive pair amounts) on each
      settlement line, negated on its reversal.
    - `fees`: the fees the player paid (fee lines, negated to a positive figure), less
      their reversals.
    - `net`: the sum of every line of the player's account: `result - fees`.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        group_by (GetV1LedgerSummaryGroupBy | Unset):  Default: 'player'. Example: player.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Summary
    """

    return sync_detailed(
        client=client,
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        group_by=group_by,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    currency: str,
    since: datetime.datetime | Unset = UNSET,
    until: datetime.datetime | Unset = UNSET,
    tz: str | Unset = "UTC",
    min_sequence: int | Unset = UNSET,
    group_by: GetV1LedgerSummaryGroupBy | Unset = "player",
) -> Response[Problem | Summary]:
    """Totals per player, table or day (in `tz`, UTC by default) over the lines dated in the period.

     Each row sums the players' lines of its group; `house_fee` sums the house's fee lines (less
    reversals) of the period. By table or day, `rounds` counts rounds booked (+1) and reversed (-1).

    Over a period (`since` or `until`) the lines are summed in full: a heavy read (see rate limits); all
    time reads the kept totals. All time by day in a zone whose days are not kept gathers them from the
    quarter hours: a heavy read too (the first such read keeps the zone's days, for up to 8 zones a
    currency).

    How a period is counted: a report sums the ledger lines *dated* in [since, until). A
    round's lines are dated at the round's `created_at`; a void's reversal lines at the void.
    So a round voided in a later period still counts in its own period and its reversal in the
    later one; over all time a voided round nets to zero.

    - `rounds`: +1 per settlement line (a player's part in a round), -1 per reversal of one.
    - `points`: the player's points on each settlement line, negated on its reversal.
    - `result`: the sum of settlement lines and their reversals.
    - `winnings`: the player's winnings (sum of its positive pair amounts) on each
      settlement line, negated on its reversal.
    - `fees`: the fees the player paid (fee lines, negated to a positive figure), less
      their reversals.
    - `net`: the sum of every line of the player's account: `result - fees`.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        group_by (GetV1LedgerSummaryGroupBy | Unset):  Default: 'player'. Example: player.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Summary]
    """

    kwargs = _get_kwargs(
        currency=currency,
        since=since,
        until=until,
        tz=tz,
        min_sequence=min_sequence,
        group_by=group_by,
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
    group_by: GetV1LedgerSummaryGroupBy | Unset = "player",
) -> Problem | Summary | None:
    """Totals per player, table or day (in `tz`, UTC by default) over the lines dated in the period.

     Each row sums the players' lines of its group; `house_fee` sums the house's fee lines (less
    reversals) of the period. By table or day, `rounds` counts rounds booked (+1) and reversed (-1).

    Over a period (`since` or `until`) the lines are summed in full: a heavy read (see rate limits); all
    time reads the kept totals. All time by day in a zone whose days are not kept gathers them from the
    quarter hours: a heavy read too (the first such read keeps the zone's days, for up to 8 zones a
    currency).

    How a period is counted: a report sums the ledger lines *dated* in [since, until). A
    round's lines are dated at the round's `created_at`; a void's reversal lines at the void.
    So a round voided in a later period still counts in its own period and its reversal in the
    later one; over all time a voided round nets to zero.

    - `rounds`: +1 per settlement line (a player's part in a round), -1 per reversal of one.
    - `points`: the player's points on each settlement line, negated on its reversal.
    - `result`: the sum of settlement lines and their reversals.
    - `winnings`: the player's winnings (sum of its positive pair amounts) on each
      settlement line, negated on its reversal.
    - `fees`: the fees the player paid (fee lines, negated to a positive figure), less
      their reversals.
    - `net`: the sum of every line of the player's account: `result - fees`.

    Args:
        currency (str):  Example: IDR.
        since (datetime.datetime | Unset):  Example: 2026-11-29T00:00:00Z.
        until (datetime.datetime | Unset):  Example: 2026-11-30T00:00:00Z.
        tz (str | Unset):  Default: 'UTC'. Example: Asia/Jakarta.
        min_sequence (int | Unset):  Example: 42.
        group_by (GetV1LedgerSummaryGroupBy | Unset):  Default: 'player'. Example: player.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Summary
    """

    return (
        await asyncio_detailed(
            client=client,
            currency=currency,
            since=since,
            until=until,
            tz=tz,
            min_sequence=min_sequence,
            group_by=group_by,
        )
    ).parsed
