from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.audit_record import AuditRecord
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    sequence: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit/records/{sequence}".format(
            sequence=quote(str(sequence), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AuditRecord | Problem:
    if response.status_code == 200:
        response_200 = AuditRecord.from_dict(response.json())

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
) -> Response[AuditRecord | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sequence: int,
    *,
    client: AuthenticatedClient | Client,
) -> Response[AuditRecord | Problem]:
    """One record of this client's chain with the canonical JSON that was hashed.

    Args:
        sequence (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditRecord | Problem]
    """

    kwargs = _get_kwargs(
        sequence=sequence,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    sequence: int,
    *,
    client: AuthenticatedClient | Client,
) -> AuditRecord | Problem | None:
    """One record of this client's chain with the canonical JSON that was hashed.

    Args:
        sequence (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditRecord | Problem
    """

    return sync_detailed(
        sequence=sequence,
        client=client,
    ).parsed


async def asyncio_detailed(
    sequence: int,
    *,
    client: AuthenticatedClient | Client,
) -> Response[AuditRecord | Problem]:
    """One record of this client's chain with the canonical JSON that was hashed.

    Args:
        sequence (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditRecord | Problem]
    """

    kwargs = _get_kwargs(
        sequence=sequence,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    sequence: int,
    *,
    client: AuthenticatedClient | Client,
) -> AuditRecord | Problem | None:
    """One record of this client's chain with the canonical JSON that was hashed.

    Args:
        sequence (int):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditRecord | Problem
    """

    return (
        await asyncio_detailed(
            sequence=sequence,
            client=client,
        )
    ).parsed
