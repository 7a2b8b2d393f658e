from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.round_verify import RoundVerify
from ...types import Response


def _get_kwargs(
    round_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/rounds/{round_id}/verify".format(
            round_id=quote(str(round_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RoundVerify:
    if response.status_code == 200:
        response_200 = RoundVerify.from_dict(response.json())

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
) -> Response[Problem | RoundVerify]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RoundVerify]:
    """Re-score the stored request with today's engine and recompute the record's hash (and its
    void's, for a voided round: fields prefixed `void.`).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundVerify]
    """

    kwargs = _get_kwargs(
        round_id=round_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RoundVerify | None:
    """Re-score the stored request with today's engine and recompute the record's hash (and its
    void's, for a voided round: fields prefixed `void.`).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundVerify
    """

    return sync_detailed(
        round_id=round_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | RoundVerify]:
    """Re-score the stored request with today's engine and recompute the record's hash (and its
    void's, for a voided round: fields prefixed `void.`).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundVerify]
    """

    kwargs = _get_kwargs(
        round_id=round_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Problem | RoundVerify | None:
    """Re-score the stored request with today's engine and recompute the record's hash (and its
    void's, for a voided round: fields prefixed `void.`).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundVerify
    """

    return (
        await asyncio_detailed(
            round_id=round_id,
            client=client,
        )
    ).parsed
