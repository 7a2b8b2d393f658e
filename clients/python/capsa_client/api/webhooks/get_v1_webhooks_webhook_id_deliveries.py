from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.attempt_list import AttemptList
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    webhook_id: str,
    *,
    event: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["event"] = event

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/webhooks/{webhook_id}/deliveries".format(
            webhook_id=quote(str(webhook_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AttemptList | Problem:
    if response.status_code == 200:
        response_200 = AttemptList.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

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
) -> Response[AttemptList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient | Client,
    event: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | Unset = UNSET,
) -> Response[AttemptList | Problem]:
    """The endpoint's delivery attempts, newest first: time, outcome, status, latency, error.

     An attempt is kept for 30 days, then deleted (the dispatcher's `WEBHOOK_ATTEMPTS_KEEP`).

    Args:
        webhook_id (str):
        event (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AttemptList | Problem]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
        event=event,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    webhook_id: str,
    *,
    client: AuthenticatedClient | Client,
    event: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | Unset = UNSET,
) -> AttemptList | Problem | None:
    """The endpoint's delivery attempts, newest first: time, outcome, status, latency, error.

     An attempt is kept for 30 days, then deleted (the dispatcher's `WEBHOOK_ATTEMPTS_KEEP`).

    Args:
        webhook_id (str):
        event (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AttemptList | Problem
    """

    return sync_detailed(
        webhook_id=webhook_id,
        client=client,
        event=event,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient | Client,
    event: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | Unset = UNSET,
) -> Response[AttemptList | Problem]:
    """The endpoint's delivery attempts, newest first: time, outcome, status, latency, error.

     An attempt is kept for 30 days, then deleted (the dispatcher's `WEBHOOK_ATTEMPTS_KEEP`).

    Args:
        webhook_id (str):
        event (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AttemptList | Problem]
    """

    kwargs = _get_kwargs(
        webhook_id=webhook_id,
        event=event,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    webhook_id: str,
    *,
    client: AuthenticatedClient | Client,
    event: str | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: int | Unset = UNSET,
) -> AttemptList | Problem | None:
    """The endpoint's delivery attempts, newest first: time, outcome, status, latency, error.

     An attempt is kept for 30 days, then deleted (the dispatcher's `WEBHOOK_ATTEMPTS_KEEP`).

    Args:
        webhook_id (str):
        event (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        limit (int | Unset):  Default: 50. Example: 50.
        cursor (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AttemptList | Problem
    """

    return (
        await asyncio_detailed(
            webhook_id=webhook_id,
            client=client,
            event=event,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
