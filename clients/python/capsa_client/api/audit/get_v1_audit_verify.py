from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.chain_verify import ChainVerify
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


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
        "url": "/v1/audit/verify",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ChainVerify | Problem:
    if response.status_code == 200:
        response_200 = ChainVerify.from_dict(response.json())

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ChainVerify | Problem]:
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
) -> Response[ChainVerify | Problem]:
    """Rebuild each record from the live rows and check it against the stored chain.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChainVerify | Problem]
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
) -> ChainVerify | Problem | None:
    """Rebuild each record from the live rows and check it against the stored chain.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChainVerify | Problem
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
) -> Response[ChainVerify | Problem]:
    """Rebuild each record from the live rows and check it against the stored chain.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ChainVerify | Problem]
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
) -> ChainVerify | Problem | None:
    """Rebuild each record from the live rows and check it against the stored chain.

    Args:
        from_sequence (int | Unset):  Default: 1. Example: 1.
        limit (int | Unset):  Default: 10000. Example: 10000.
        min_sequence (int | Unset):  Example: 42.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ChainVerify | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            from_sequence=from_sequence,
            limit=limit,
            min_sequence=min_sequence,
        )
    ).parsed
