from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.commitment import Commitment
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    commitment_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/deals/commitments/{commitment_id}".format(
            commitment_id=quote(str(commitment_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Commitment | Problem:
    if response.status_code == 200:
        response_200 = Commitment.from_dict(response.json())

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
) -> Response[Commitment | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    commitment_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Commitment | Problem]:
    """One commitment: its seed's SHA-256, its nonce, and the deal made from it.

    Args:
        commitment_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Commitment | Problem]
    """

    kwargs = _get_kwargs(
        commitment_id=commitment_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    commitment_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Commitment | Problem | None:
    """One commitment: its seed's SHA-256, its nonce, and the deal made from it.

    Args:
        commitment_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Commitment | Problem
    """

    return sync_detailed(
        commitment_id=commitment_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    commitment_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Commitment | Problem]:
    """One commitment: its seed's SHA-256, its nonce, and the deal made from it.

    Args:
        commitment_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Commitment | Problem]
    """

    kwargs = _get_kwargs(
        commitment_id=commitment_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    commitment_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Commitment | Problem | None:
    """One commitment: its seed's SHA-256, its nonce, and the deal made from it.

    Args:
        commitment_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Commitment | Problem
    """

    return (
        await asyncio_detailed(
            commitment_id=commitment_id,
            client=client,
        )
    ).parsed
