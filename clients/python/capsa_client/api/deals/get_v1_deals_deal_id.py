from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.deal import Deal
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    deal_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deals/{deal_id}".format(
            deal_id=quote(str(deal_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Deal | Problem:
    if response.status_code == 200:
        response_200 = Deal.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Deal | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    deal_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Deal | Problem]:
    """One deal; `server_seed` (hex) only once it is used or revealed.

     While the game that used it is in play, neither `hands` nor `server_seed`.

    Args:
        deal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deal | Problem]
    """

    kwargs = _get_kwargs(
        deal_id=deal_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deal_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Deal | Problem | None:
    """One deal; `server_seed` (hex) only once it is used or revealed.

     While the game that used it is in play, neither `hands` nor `server_seed`.

    Args:
        deal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deal | Problem
    """

    return sync_detailed(
        deal_id=deal_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    deal_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Deal | Problem]:
    """One deal; `server_seed` (hex) only once it is used or revealed.

     While the game that used it is in play, neither `hands` nor `server_seed`.

    Args:
        deal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deal | Problem]
    """

    kwargs = _get_kwargs(
        deal_id=deal_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deal_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Deal | Problem | None:
    """One deal; `server_seed` (hex) only once it is used or revealed.

     While the game that used it is in play, neither `hands` nor `server_seed`.

    Args:
        deal_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deal | Problem
    """

    return (
        await asyncio_detailed(
            deal_id=deal_id,
            client=client,
        )
    ).parsed
