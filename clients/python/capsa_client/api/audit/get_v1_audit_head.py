from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.audit_head import AuditHead
from ...models.problem import Problem
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit/head",
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> AuditHead | Problem:
    if response.status_code == 200:
        response_200 = AuditHead.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[AuditHead | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[AuditHead | Problem]:
    """The last record of this client's chain, signed now: keep it to compare later.
    409 `conflict` when the stored head does not name the last record, whose bytes hash
    to it: no such head is signed (verify the chain).

     Two signed heads that cannot lie on one chain (the same sequence with different
    hashes, or a later head whose chain does not pass through the earlier one) prove
    the chain was forked or rewritten; `capsa audit verify-file --head` checks that.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditHead | Problem]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> AuditHead | Problem | None:
    """The last record of this client's chain, signed now: keep it to compare later.
    409 `conflict` when the stored head does not name the last record, whose bytes hash
    to it: no such head is signed (verify the chain).

     Two signed heads that cannot lie on one chain (the same sequence with different
    hashes, or a later head whose chain does not pass through the earlier one) prove
    the chain was forked or rewritten; `capsa audit verify-file --head` checks that.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditHead | Problem
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[AuditHead | Problem]:
    """The last record of this client's chain, signed now: keep it to compare later.
    409 `conflict` when the stored head does not name the last record, whose bytes hash
    to it: no such head is signed (verify the chain).

     Two signed heads that cannot lie on one chain (the same sequence with different
    hashes, or a later head whose chain does not pass through the earlier one) prove
    the chain was forked or rewritten; `capsa audit verify-file --head` checks that.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AuditHead | Problem]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> AuditHead | Problem | None:
    """The last record of this client's chain, signed now: keep it to compare later.
    409 `conflict` when the stored head does not name the last record, whose bytes hash
    to it: no such head is signed (verify the chain).

     Two signed heads that cannot lie on one chain (the same sequence with different
    hashes, or a later head whose chain does not pass through the earlier one) prove
    the chain was forked or rewritten; `capsa audit verify-file --head` checks that.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AuditHead | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
