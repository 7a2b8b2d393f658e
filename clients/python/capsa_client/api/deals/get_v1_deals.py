from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.deal_list import DealList
from ...models.get_v1_deals_status import GetV1DealsStatus
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    cursor: str | Unset = UNSET,
    status: GetV1DealsStatus | Unset = UNSET,
    limit: int | Unset = 50,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cursor"] = cursor

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deals",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> DealList | Problem:
    if response.status_code == 200:
        response_200 = DealList.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[DealList | Problem]:
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
    status: GetV1DealsStatus | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[DealList | Problem]:
    """List this client's deals, newest first, by status, in pages.

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1DealsStatus | Unset):  Example: open.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DealList | Problem]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        status=status,
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
    status: GetV1DealsStatus | Unset = UNSET,
    limit: int | Unset = 50,
) -> DealList | Problem | None:
    """List this client's deals, newest first, by status, in pages.

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1DealsStatus | Unset):  Example: open.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DealList | Problem
    """

    return sync_detailed(
        client=client,
        cursor=cursor,
        status=status,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    status: GetV1DealsStatus | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[DealList | Problem]:
    """List this client's deals, newest first, by status, in pages.

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1DealsStatus | Unset):  Example: open.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DealList | Problem]
    """

    kwargs = _get_kwargs(
        cursor=cursor,
        status=status,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    status: GetV1DealsStatus | Unset = UNSET,
    limit: int | Unset = 50,
) -> DealList | Problem | None:
    """List this client's deals, newest first, by status, in pages.

    Args:
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        status (GetV1DealsStatus | Unset):  Example: open.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DealList | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            cursor=cursor,
            status=status,
            limit=limit,
        )
    ).parsed
