from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.event_list import EventList
from ...models.get_v1_events_type import GetV1EventsType
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    type_: GetV1EventsType | Unset = UNSET,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    json_type_: str | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = type_

    params["type"] = json_type_

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> EventList | Problem:
    if response.status_code == 200:
        response_200 = EventList.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[EventList | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    type_: GetV1EventsType | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[EventList | Problem]:
    """This client's events, oldest first, after the event `after`.

     A page of more than 100 events is a heavy read (each event is its round's whole
    document): 429 `rate-limited` while the client has its heavy reads in flight.

    Args:
        after (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        type_ (GetV1EventsType | Unset):  Example: round.settled.
        limit (int | Unset):  Default: 100. Example: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventList | Problem]
    """

    kwargs = _get_kwargs(
        after=after,
        type_=type_,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    type_: GetV1EventsType | Unset = UNSET,
    limit: int | Unset = 100,
) -> EventList | Problem | None:
    """This client's events, oldest first, after the event `after`.

     A page of more than 100 events is a heavy read (each event is its round's whole
    document): 429 `rate-limited` while the client has its heavy reads in flight.

    Args:
        after (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        type_ (GetV1EventsType | Unset):  Example: round.settled.
        limit (int | Unset):  Default: 100. Example: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventList | Problem
    """

    return sync_detailed(
        client=client,
        after=after,
        type_=type_,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    type_: GetV1EventsType | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[EventList | Problem]:
    """This client's events, oldest first, after the event `after`.

     A page of more than 100 events is a heavy read (each event is its round's whole
    document): 429 `rate-limited` while the client has its heavy reads in flight.

    Args:
        after (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        type_ (GetV1EventsType | Unset):  Example: round.settled.
        limit (int | Unset):  Default: 100. Example: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[EventList | Problem]
    """

    kwargs = _get_kwargs(
        after=after,
        type_=type_,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    type_: GetV1EventsType | Unset = UNSET,
    limit: int | Unset = 100,
) -> EventList | Problem | None:
    """This client's events, oldest first, after the event `after`.

     A page of more than 100 events is a heavy read (each event is its round's whole
    document): 429 `rate-limited` while the client has its heavy reads in flight.

    Args:
        after (str | Unset):  Example: evt_01JDX8Q4N6V2C3M5B7Z9K1T3W5_settled.
        type_ (GetV1EventsType | Unset):  Example: round.settled.
        limit (int | Unset):  Default: 100. Example: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        EventList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            type_=type_,
            limit=limit,
        )
    ).parsed
