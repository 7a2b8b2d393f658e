from http import HTTPStatus
from io import BytesIO
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    *,
    from_sequence: int | Unset = 1,
    limit: int | Unset = 10000,
    min_sequence: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["from_sequence"] = from_sequence

    params["limit"] = limit

    params["min_sequence"] = min_sequence

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/audit/export",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> File | Problem:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[File | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    from_sequence: int | Unset = 1,
    limit: int | Unset = 10000,
    min_sequence: int | Unset = UNSET,
) -> Response[File | Problem]:
    """The chain's records as NDJSON, streamed: hashed bytes, hashes, receipts.

     At most `limit` records (50,000) and 256 MiB an answer, read in pages of 1,000, so
    memory stays bounded, a request ends well within a worker's timeout and the answer
    fits whole in the buffer nginx keeps for a slow reader.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        from_sequence=from_sequence,
        limit=limit,
        min_sequence=min_sequence,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    from_sequence: int | Unset = 1,
    limit: int | Unset = 10000,
    min_sequence: int | Unset = UNSET,
) -> File | Problem | None:
    """The chain's records as NDJSON, streamed: hashed bytes, hashes, receipts.

     At most `limit` records (50,000) and 256 MiB an answer, read in pages of 1,000, so
    memory stays bounded, a request ends well within a worker's timeout and the answer
    fits whole in the buffer nginx keeps for a slow reader.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return sync_detailed(
        client=client,
        from_sequence=from_sequence,
        limit=limit,
        min_sequence=min_sequence,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    from_sequence: int | Unset = 1,
    limit: int | Unset = 10000,
    min_sequence: int | Unset = UNSET,
) -> Response[File | Problem]:
    """The chain's records as NDJSON, streamed: hashed bytes, hashes, receipts.

     At most `limit` records (50,000) and 256 MiB an answer, read in pages of 1,000, so
    memory stays bounded, a request ends well within a worker's timeout and the answer
    fits whole in the buffer nginx keeps for a slow reader.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[File | Problem]
    """

    kwargs = _get_kwargs(
        from_sequence=from_sequence,
        limit=limit,
        min_sequence=min_sequence,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    from_sequence: int | Unset = 1,
    limit: int | Unset = 10000,
    min_sequence: int | Unset = UNSET,
) -> File | Problem | None:
    """The chain's records as NDJSON, streamed: hashed bytes, hashes, receipts.

     At most `limit` records (50,000) and 256 MiB an answer, read in pages of 1,000, so
    memory stays bounded, a request ends well within a worker's timeout and the answer
    fits whole in the buffer nginx keeps for a slow reader.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        File | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            from_sequence=from_sequence,
            limit=limit,
            min_sequence=min_sequence,
        )
    ).parsed
