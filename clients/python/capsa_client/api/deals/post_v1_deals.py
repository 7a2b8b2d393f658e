from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.deal import Deal
from ...models.deal_request import DealRequest
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: DealRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/deals",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Deal | Problem:
    if response.status_code == 201:
        response_201 = Deal.from_dict(response.json())

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Deal | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DealRequest,
) -> Response[Deal | Problem]:
    """Deal 13 cards to each of 2 to 4 players from a committed, secret server seed.

     The server seed stays secret (only its SHA-256 `commitment` is shown) until a round uses the deal, a
    game that used it has ended, or it is revealed.

    Algorithm (anyone can recompute it): `server_seed` is 32 random bytes from the OS CSPRNG;
    `commitment` = hex SHA-256(server_seed); `nonce` = the client's count of server seeds
    drawn before this one (0, 1, ...): its commitments, and its deals made without one. Byte stream:
    blocks HMAC-SHA256(key = server_seed, message = UTF-8 of
    `"<client_seed>:<nonce>:<i>"`) for i = 0, 1, 2..., concatenated, read as 4-byte big-endian
    unsigned integers u. Start deck: `2c 2d 2h 2s 3c ... As` (ranks 2..A, suits c d h s).
    Fisher-Yates: for i from 51 down to 1, n = i + 1, limit = floor(2^32 / n) x n; take the
    next u until u < limit; j = u mod n; swap positions i and j. Player k of the request gets
    cards 13k .. 13k+12.

    Commit first, so that the server seed is fixed before the client's seed exists:
    `POST /v1/deals/commitments` draws the server seed and takes the nonce, and answers its
    `commitment` and `nonce`, never the seed; choose `client_seed` after, and send both as `POST
    /v1/deals` with
    `commitment_id`. The deal's `commitment` and `nonce` are the ones answered before. Without
    `commitment_id` the service draws the seed in the deal's own request, after it has seen
    `client_seed` (`committed_at` then equals `created_at`).

    Test vector: server_seed = bytes 0x00, 0x01, ..., 0x1f; client_seed `table-7`; nonce 0 ->
    commitment `630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`,
    player 0 `7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s`,
    player 3 `3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h`.

    A round (`POST /v1/rounds`, `POST /v1/score`) or a Big Two game may carry
    `"deal": "<deal id>"`: every player's cards must be exactly its dealt hand (422
    `invalid-cards` otherwise); a deal is used at most once (409 `conflict`). A round that uses
    it reveals it; a game reveals it once the game has ended (settled or finished): while the
    game is in play the deal's `hands` and `server_seed` are left out of every answer, for
    every key, and naming the deal (a round, `POST /v1/score`, a game, reveal) is 409
    `deal-in-play`. `POST /v1/score` checks the cards without using the deal.

    Args:
        body (DealRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deal | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: DealRequest,
) -> Deal | Problem | None:
    """Deal 13 cards to each of 2 to 4 players from a committed, secret server seed.

     The server seed stays secret (only its SHA-256 `commitment` is shown) until a round uses the deal, a
    game that used it has ended, or it is revealed.

    Algorithm (anyone can recompute it): `server_seed` is 32 random bytes from the OS CSPRNG;
    `commitment` = hex SHA-256(server_seed); `nonce` = the client's count of server seeds
    drawn before this one (0, 1, ...): its commitments, and its deals made without one. Byte stream:
    blocks HMAC-SHA256(key = server_seed, message = UTF-8 of
    `"<client_seed>:<nonce>:<i>"`) for i = 0, 1, 2..., concatenated, read as 4-byte big-endian
    unsigned integers u. Start deck: `2c 2d 2h 2s 3c ... As` (ranks 2..A, suits c d h s).
    Fisher-Yates: for i from 51 down to 1, n = i + 1, limit = floor(2^32 / n) x n; take the
    next u until u < limit; j = u mod n; swap positions i and j. Player k of the request gets
    cards 13k .. 13k+12.

    Commit first, so that the server seed is fixed before the client's seed exists:
    `POST /v1/deals/commitments` draws the server seed and takes the nonce, and answers its
    `commitment` and `nonce`, never the seed; choose `client_seed` after, and send both as `POST
    /v1/deals` with
    `commitment_id`. The deal's `commitment` and `nonce` are the ones answered before. Without
    `commitment_id` the service draws the seed in the deal's own request, after it has seen
    `client_seed` (`committed_at` then equals `created_at`).

    Test vector: server_seed = bytes 0x00, 0x01, ..., 0x1f; client_seed `table-7`; nonce 0 ->
    commitment `630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`,
    player 0 `7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s`,
    player 3 `3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h`.

    A round (`POST /v1/rounds`, `POST /v1/score`) or a Big Two game may carry
    `"deal": "<deal id>"`: every player's cards must be exactly its dealt hand (422
    `invalid-cards` otherwise); a deal is used at most once (409 `conflict`). A round that uses
    it reveals it; a game reveals it once the game has ended (settled or finished): while the
    game is in play the deal's `hands` and `server_seed` are left out of every answer, for
    every key, and naming the deal (a round, `POST /v1/score`, a game, reveal) is 409
    `deal-in-play`. `POST /v1/score` checks the cards without using the deal.

    Args:
        body (DealRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deal | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: DealRequest,
) -> Response[Deal | Problem]:
    """Deal 13 cards to each of 2 to 4 players from a committed, secret server seed.

     The server seed stays secret (only its SHA-256 `commitment` is shown) until a round uses the deal, a
    game that used it has ended, or it is revealed.

    Algorithm (anyone can recompute it): `server_seed` is 32 random bytes from the OS CSPRNG;
    `commitment` = hex SHA-256(server_seed); `nonce` = the client's count of server seeds
    drawn before this one (0, 1, ...): its commitments, and its deals made without one. Byte stream:
    blocks HMAC-SHA256(key = server_seed, message = UTF-8 of
    `"<client_seed>:<nonce>:<i>"`) for i = 0, 1, 2..., concatenated, read as 4-byte big-endian
    unsigned integers u. Start deck: `2c 2d 2h 2s 3c ... As` (ranks 2..A, suits c d h s).
    Fisher-Yates: for i from 51 down to 1, n = i + 1, limit = floor(2^32 / n) x n; take the
    next u until u < limit; j = u mod n; swap positions i and j. Player k of the request gets
    cards 13k .. 13k+12.

    Commit first, so that the server seed is fixed before the client's seed exists:
    `POST /v1/deals/commitments` draws the server seed and takes the nonce, and answers its
    `commitment` and `nonce`, never the seed; choose `client_seed` after, and send both as `POST
    /v1/deals` with
    `commitment_id`. The deal's `commitment` and `nonce` are the ones answered before. Without
    `commitment_id` the service draws the seed in the deal's own request, after it has seen
    `client_seed` (`committed_at` then equals `created_at`).

    Test vector: server_seed = bytes 0x00, 0x01, ..., 0x1f; client_seed `table-7`; nonce 0 ->
    commitment `630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`,
    player 0 `7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s`,
    player 3 `3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h`.

    A round (`POST /v1/rounds`, `POST /v1/score`) or a Big Two game may carry
    `"deal": "<deal id>"`: every player's cards must be exactly its dealt hand (422
    `invalid-cards` otherwise); a deal is used at most once (409 `conflict`). A round that uses
    it reveals it; a game reveals it once the game has ended (settled or finished): while the
    game is in play the deal's `hands` and `server_seed` are left out of every answer, for
    every key, and naming the deal (a round, `POST /v1/score`, a game, reveal) is 409
    `deal-in-play`. `POST /v1/score` checks the cards without using the deal.

    Args:
        body (DealRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Deal | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: DealRequest,
) -> Deal | Problem | None:
    """Deal 13 cards to each of 2 to 4 players from a committed, secret server seed.

     The server seed stays secret (only its SHA-256 `commitment` is shown) until a round uses the deal, a
    game that used it has ended, or it is revealed.

    Algorithm (anyone can recompute it): `server_seed` is 32 random bytes from the OS CSPRNG;
    `commitment` = hex SHA-256(server_seed); `nonce` = the client's count of server seeds
    drawn before this one (0, 1, ...): its commitments, and its deals made without one. Byte stream:
    blocks HMAC-SHA256(key = server_seed, message = UTF-8 of
    `"<client_seed>:<nonce>:<i>"`) for i = 0, 1, 2..., concatenated, read as 4-byte big-endian
    unsigned integers u. Start deck: `2c 2d 2h 2s 3c ... As` (ranks 2..A, suits c d h s).
    Fisher-Yates: for i from 51 down to 1, n = i + 1, limit = floor(2^32 / n) x n; take the
    next u until u < limit; j = u mod n; swap positions i and j. Player k of the request gets
    cards 13k .. 13k+12.

    Commit first, so that the server seed is fixed before the client's seed exists:
    `POST /v1/deals/commitments` draws the server seed and takes the nonce, and answers its
    `commitment` and `nonce`, never the seed; choose `client_seed` after, and send both as `POST
    /v1/deals` with
    `commitment_id`. The deal's `commitment` and `nonce` are the ones answered before. Without
    `commitment_id` the service draws the seed in the deal's own request, after it has seen
    `client_seed` (`committed_at` then equals `created_at`).

    Test vector: server_seed = bytes 0x00, 0x01, ..., 0x1f; client_seed `table-7`; nonce 0 ->
    commitment `630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`,
    player 0 `7c Qc 5c 7h 9c As 5h 7d 3d 2d Kh Tc 2s`,
    player 3 `3h Qh 4s 5d 8d 9h 3s 6c Jc 7s 3c Ah 2h`.

    A round (`POST /v1/rounds`, `POST /v1/score`) or a Big Two game may carry
    `"deal": "<deal id>"`: every player's cards must be exactly its dealt hand (422
    `invalid-cards` otherwise); a deal is used at most once (409 `conflict`). A round that uses
    it reveals it; a game reveals it once the game has ended (settled or finished): while the
    game is in play the deal's `hands` and `server_seed` are left out of every answer, for
    every key, and naming the deal (a round, `POST /v1/score`, a game, reveal) is 409
    `deal-in-play`. `POST /v1/score` checks the cards without using the deal.

    Args:
        body (DealRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Deal | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
