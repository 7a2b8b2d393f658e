from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.match import Match
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    match_id: str,
    *,
    if_match: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/banting/matches/{match_id}".format(
            match_id=quote(str(match_id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Match | Problem:
    if response.status_code == 200:
        response_200 = Match.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 406:
        response_406 = Problem.from_dict(response.json())

        return response_406

    if response.status_code == 412:
        response_412 = Problem.from_dict(response.json())

        return response_412

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
) -> Response[Any | Match | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | Match | Problem]:
    """The match: its players' totals and the standings after its latest finished games.

     `games` holds the latest 100 (`played` says how many there are); `GET
    /v1/banting/matches/{id}/games` pages through all of them.

    Args:
        match_id (str):
        if_match (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Match | Problem]
    """

    kwargs = _get_kwargs(
        match_id=match_id,
        if_match=if_match,
        if_none_match=if_none_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | Match | Problem | None:
    """The match: its players' totals and the standings after its latest finished games.

     `games` holds the latest 100 (`played` says how many there are); `GET
    /v1/banting/matches/{id}/games` pages through all of them.

    Args:
        match_id (str):
        if_match (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Match | Problem
    """

    return sync_detailed(
        match_id=match_id,
        client=client,
        if_match=if_match,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | Match | Problem]:
    """The match: its players' totals and the standings after its latest finished games.

     `games` holds the latest 100 (`played` says how many there are); `GET
    /v1/banting/matches/{id}/games` pages through all of them.

    Args:
        match_id (str):
        if_match (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Match | Problem]
    """

    kwargs = _get_kwargs(
        match_id=match_id,
        if_match=if_match,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    if_match: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | Match | Problem | None:
    """The match: its players' totals and the standings after its latest finished games.

     `games` holds the latest 100 (`played` says how many there are); `GET
    /v1/banting/matches/{id}/games` pages through all of them.

    Args:
        match_id (str):
        if_match (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Match | Problem
    """

    return (
        await asyncio_detailed(
            match_id=match_id,
            client=client,
            if_match=if_match,
            if_none_match=if_none_match,
        )
    ).parsed
