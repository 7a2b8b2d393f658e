from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.match_game_list import MatchGameList
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    match_id: str,
    *,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cursor"] = cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/banting/matches/{match_id}/games".format(
            match_id=quote(str(match_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> MatchGameList | Problem:
    if response.status_code == 200:
        response_200 = MatchGameList.from_dict(response.json())

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
) -> Response[MatchGameList | Problem]:
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
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[MatchGameList | Problem]:
    """The match's finished games, voided ones too, newest first, in pages: each with its
    points and the standings after it.

    Args:
        match_id (str):
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MatchGameList | Problem]
    """

    kwargs = _get_kwargs(
        match_id=match_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> MatchGameList | Problem | None:
    """The match's finished games, voided ones too, newest first, in pages: each with its
    points and the standings after it.

    Args:
        match_id (str):
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MatchGameList | Problem
    """

    return sync_detailed(
        match_id=match_id,
        client=client,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> Response[MatchGameList | Problem]:
    """The match's finished games, voided ones too, newest first, in pages: each with its
    points and the standings after it.

    Args:
        match_id (str):
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MatchGameList | Problem]
    """

    kwargs = _get_kwargs(
        match_id=match_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    match_id: str,
    *,
    client: AuthenticatedClient | Client,
    cursor: str | Unset = UNSET,
    limit: int | Unset = 50,
) -> MatchGameList | Problem | None:
    """The match's finished games, voided ones too, newest first, in pages: each with its
    points and the standings after it.

    Args:
        match_id (str):
        cursor (str | Unset):  Example: WyIyMDI2LTExLTI5VDEwOjAwOjAwKzAwOjAwIiwiZGxfMDFKIl0.
        limit (int | Unset):  Default: 50. Example: 50.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MatchGameList | Problem
    """

    return (
        await asyncio_detailed(
            match_id=match_id,
            client=client,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
