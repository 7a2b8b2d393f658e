from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.view_link import ViewLink
from ...types import Response


def _get_kwargs(
    round_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/rounds/{round_id}/view-link".format(
            round_id=quote(str(round_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | ViewLink:
    if response.status_code == 201:
        response_201 = ViewLink.from_dict(response.json())

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

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | ViewLink]:
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
) -> Response[Problem | ViewLink]:
    """A link to an HTML view of the round: HMAC-signed, expires (default 1 hour).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ViewLink]
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
) -> Problem | ViewLink | None:
    """A link to an HTML view of the round: HMAC-signed, expires (default 1 hour).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ViewLink
    """

    return sync_detailed(
        round_id=round_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | ViewLink]:
    """A link to an HTML view of the round: HMAC-signed, expires (default 1 hour).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ViewLink]
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
) -> Problem | ViewLink | None:
    """A link to an HTML view of the round: HMAC-signed, expires (default 1 hour).

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ViewLink
    """

    return (
        await asyncio_detailed(
            round_id=round_id,
            client=client,
        )
    ).parsed
