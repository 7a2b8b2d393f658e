from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.commitment import Commitment
from ...models.problem import Problem
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/deals/commitments",
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Commitment | Problem:
    if response.status_code == 201:
        response_201 = Commitment.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Problem.from_dict(response.json())

        return response_415

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
    *,
    client: AuthenticatedClient | Client,
) -> Response[Commitment | Problem]:
    """Draw a secret server seed and take the next nonce now, before you choose your seed (no body needed).

     Answers the seed's SHA-256 (`commitment`) and the nonce; name the commitment as
    `commitment_id` in `POST /v1/deals` to deal with them. A commitment makes one deal
    (409 `conflict` after: its `detail` names the deal made, so a retry after a lost
    answer finds it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Commitment | Problem]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Commitment | Problem | None:
    """Draw a secret server seed and take the next nonce now, before you choose your seed (no body needed).

     Answers the seed's SHA-256 (`commitment`) and the nonce; name the commitment as
    `commitment_id` in `POST /v1/deals` to deal with them. A commitment makes one deal
    (409 `conflict` after: its `detail` names the deal made, so a retry after a lost
    answer finds it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Commitment | Problem
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Commitment | Problem]:
    """Draw a secret server seed and take the next nonce now, before you choose your seed (no body needed).

     Answers the seed's SHA-256 (`commitment`) and the nonce; name the commitment as
    `commitment_id` in `POST /v1/deals` to deal with them. A commitment makes one deal
    (409 `conflict` after: its `detail` names the deal made, so a retry after a lost
    answer finds it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Commitment | Problem]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Commitment | Problem | None:
    """Draw a secret server seed and take the next nonce now, before you choose your seed (no body needed).

     Answers the seed's SHA-256 (`commitment`) and the nonce; name the commitment as
    `commitment_id` in `POST /v1/deals` to deal with them. A commitment makes one deal
    (409 `conflict` after: its `detail` names the deal made, so a retry after a lost
    answer finds it).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Commitment | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
