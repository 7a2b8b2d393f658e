from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.ready import Ready
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/readyz",
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | Ready:
    if response.status_code == 200:
        response_200 = Ready.from_dict(response.json())

        return response_200

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    response_default = Problem.from_dict(response.json())

    return response_default


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Problem | Ready]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | Ready]:
    """Readiness: 200 when the database takes writes with the expected timeouts, 503
    otherwise; on PostgreSQL, also what a commit waits for (`replication`).

     With READ_DATABASE_URL, `replica` says whether the reports' standby serves and how
    far behind it is (probed with the check); a lagging or absent standby leaves readiness to the
    primary, which then serves the reports.

    A process answers with what it found for up to READY_CACHE_S (1 s) after it looked:
    the route is never rate limited, and a flood of it checks once a second a process.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Ready]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Problem | Ready | None:
    """Readiness: 200 when the database takes writes with the expected timeouts, 503
    otherwise; on PostgreSQL, also what a commit waits for (`replication`).

     With READ_DATABASE_URL, `replica` says whether the reports' standby serves and how
    far behind it is (probed with the check); a lagging or absent standby leaves readiness to the
    primary, which then serves the reports.

    A process answers with what it found for up to READY_CACHE_S (1 s) after it looked:
    the route is never rate limited, and a flood of it checks once a second a process.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Ready
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Problem | Ready]:
    """Readiness: 200 when the database takes writes with the expected timeouts, 503
    otherwise; on PostgreSQL, also what a commit waits for (`replication`).

     With READ_DATABASE_URL, `replica` says whether the reports' standby serves and how
    far behind it is (probed with the check); a lagging or absent standby leaves readiness to the
    primary, which then serves the reports.

    A process answers with what it found for up to READY_CACHE_S (1 s) after it looked:
    the route is never rate limited, and a flood of it checks once a second a process.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | Ready]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Problem | Ready | None:
    """Readiness: 200 when the database takes writes with the expected timeouts, 503
    otherwise; on PostgreSQL, also what a commit waits for (`replication`).

     With READ_DATABASE_URL, `replica` says whether the reports' standby serves and how
    far behind it is (probed with the check); a lagging or absent standby leaves readiness to the
    primary, which then serves the reports.

    A process answers with what it found for up to READY_CACHE_S (1 s) after it looked:
    the route is never rate limited, and a flood of it checks once a second a process.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | Ready
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
