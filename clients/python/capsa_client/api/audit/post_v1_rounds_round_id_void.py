from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.round_document import RoundDocument
from ...models.void_request import VoidRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    round_id: str,
    *,
    body: VoidRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/rounds/{round_id}/void".format(
            round_id=quote(str(round_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RoundDocument:
    if response.status_code == 200:
        response_200 = RoundDocument.from_dict(response.json())

        return response_200

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

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

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
) -> Response[Problem | RoundDocument]:
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
    body: VoidRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | RoundDocument]:
    """Void a round: a new chained record with reversing lines; voiding twice is 409.

     The void of a Big Two match's game also takes that game out of the match's standings
    (its entry marked `void`, the match's version bumped), in the same transaction.

    Args:
        round_id (str):
        idempotency_key (str | Unset):
        body (VoidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundDocument]
    """

    kwargs = _get_kwargs(
        round_id=round_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: VoidRequest,
    idempotency_key: str | Unset = UNSET,
) -> Problem | RoundDocument | None:
    """Void a round: a new chained record with reversing lines; voiding twice is 409.

     The void of a Big Two match's game also takes that game out of the match's standings
    (its entry marked `void`, the match's version bumped), in the same transaction.

    Args:
        round_id (str):
        idempotency_key (str | Unset):
        body (VoidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundDocument
    """

    return sync_detailed(
        round_id=round_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: VoidRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[Problem | RoundDocument]:
    """Void a round: a new chained record with reversing lines; voiding twice is 409.

     The void of a Big Two match's game also takes that game out of the match's standings
    (its entry marked `void`, the match's version bumped), in the same transaction.

    Args:
        round_id (str):
        idempotency_key (str | Unset):
        body (VoidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundDocument]
    """

    kwargs = _get_kwargs(
        round_id=round_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    round_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: VoidRequest,
    idempotency_key: str | Unset = UNSET,
) -> Problem | RoundDocument | None:
    """Void a round: a new chained record with reversing lines; voiding twice is 409.

     The void of a Big Two match's game also takes that game out of the match's standings
    (its entry marked `void`, the match's version bumped), in the same transaction.

    Args:
        round_id (str):
        idempotency_key (str | Unset):
        body (VoidRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundDocument
    """

    return (
        await asyncio_detailed(
            round_id=round_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
