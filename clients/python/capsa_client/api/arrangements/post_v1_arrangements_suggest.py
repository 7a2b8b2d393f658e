from http import HTTPStatus
from typing import Any

import httpx

from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.suggest_request import SuggestRequest
from ...models.suggest_result import SuggestResult
from ...types import Response


def _get_kwargs(
    *,
    body: SuggestRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/arrangements/suggest",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SuggestResult:
    if response.status_code == 200:
        response_200 = SuggestResult.from_dict(response.json())

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
) -> Response[Problem | SuggestResult]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SuggestRequest,
) -> Response[Problem | SuggestResult]:
    """Suggest the best legal arrangements of a 13-card hand, best first.

     Every one of the 72,072 settings is considered (none skipped that could be the
    best); fouls are never suggested; a natural of the rule set is reported.
    `score` is the expected points of the setting against ONE opponent of a reference
    field whose hands are set by a baseline arranger (strongest five at the back,
    strongest five of the rest in the middle, the other three in front). For each row
    r, with w_r / l_r the probabilities (from shipped per-row strength tables built
    from 200,000 seeded deals) that our row wins / loses, v_r its `row_points` weight,
    B_r our row's bonus (`bonus_by_rank` or `bonus`) and X_r the opponent's expected
    bonus in a row it wins, rows taken as independent:

    score = sum_r [v_r (w_r - l_r) + w_r B_r - X_r]
    + ((tembus_multiplier - 1) x sum_r v_r + scoop_bonus) x (P(sweep) - P(swept))
    + overall_unit x (P(overall won) - P(overall lost)),

    where the overall is won with two rows or more (`overall_rule` two_rows) or, under
    more_rows, also with one row won and two tied. `bonus_paid`, `royalty_flat` and
    `max_one_royalty` change the bonus terms as the rules do; a setting holding a
    natural is worth the natural's value. Super, the opponent's naturals and fouls are
    not modelled.

    Args:
        body (SuggestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SuggestResult]
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
    body: SuggestRequest,
) -> Problem | SuggestResult | None:
    """Suggest the best legal arrangements of a 13-card hand, best first.

     Every one of the 72,072 settings is considered (none skipped that could be the
    best); fouls are never suggested; a natural of the rule set is reported.
    `score` is the expected points of the setting against ONE opponent of a reference
    field whose hands are set by a baseline arranger (strongest five at the back,
    strongest five of the rest in the middle, the other three in front). For each row
    r, with w_r / l_r the probabilities (from shipped per-row strength tables built
    from 200,000 seeded deals) that our row wins / loses, v_r its `row_points` weight,
    B_r our row's bonus (`bonus_by_rank` or `bonus`) and X_r the opponent's expected
    bonus in a row it wins, rows taken as independent:

    score = sum_r [v_r (w_r - l_r) + w_r B_r - X_r]
    + ((tembus_multiplier - 1) x sum_r v_r + scoop_bonus) x (P(sweep) - P(swept))
    + overall_unit x (P(overall won) - P(overall lost)),

    where the overall is won with two rows or more (`overall_rule` two_rows) or, under
    more_rows, also with one row won and two tied. `bonus_paid`, `royalty_flat` and
    `max_one_royalty` change the bonus terms as the rules do; a setting holding a
    natural is worth the natural's value. Super, the opponent's naturals and fouls are
    not modelled.

    Args:
        body (SuggestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SuggestResult
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SuggestRequest,
) -> Response[Problem | SuggestResult]:
    """Suggest the best legal arrangements of a 13-card hand, best first.

     Every one of the 72,072 settings is considered (none skipped that could be the
    best); fouls are never suggested; a natural of the rule set is reported.
    `score` is the expected points of the setting against ONE opponent of a reference
    field whose hands are set by a baseline arranger (strongest five at the back,
    strongest five of the rest in the middle, the other three in front). For each row
    r, with w_r / l_r the probabilities (from shipped per-row strength tables built
    from 200,000 seeded deals) that our row wins / loses, v_r its `row_points` weight,
    B_r our row's bonus (`bonus_by_rank` or `bonus`) and X_r the opponent's expected
    bonus in a row it wins, rows taken as independent:

    score = sum_r [v_r (w_r - l_r) + w_r B_r - X_r]
    + ((tembus_multiplier - 1) x sum_r v_r + scoop_bonus) x (P(sweep) - P(swept))
    + overall_unit x (P(overall won) - P(overall lost)),

    where the overall is won with two rows or more (`overall_rule` two_rows) or, under
    more_rows, also with one row won and two tied. `bonus_paid`, `royalty_flat` and
    `max_one_royalty` change the bonus terms as the rules do; a setting holding a
    natural is worth the natural's value. Super, the opponent's naturals and fouls are
    not modelled.

    Args:
        body (SuggestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SuggestResult]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: SuggestRequest,
) -> Problem | SuggestResult | None:
    """Suggest the best legal arrangements of a 13-card hand, best first.

     Every one of the 72,072 settings is considered (none skipped that could be the
    best); fouls are never suggested; a natural of the rule set is reported.
    `score` is the expected points of the setting against ONE opponent of a reference
    field whose hands are set by a baseline arranger (strongest five at the back,
    strongest five of the rest in the middle, the other three in front). For each row
    r, with w_r / l_r the probabilities (from shipped per-row strength tables built
    from 200,000 seeded deals) that our row wins / loses, v_r its `row_points` weight,
    B_r our row's bonus (`bonus_by_rank` or `bonus`) and X_r the opponent's expected
    bonus in a row it wins, rows taken as independent:

    score = sum_r [v_r (w_r - l_r) + w_r B_r - X_r]
    + ((tembus_multiplier - 1) x sum_r v_r + scoop_bonus) x (P(sweep) - P(swept))
    + overall_unit x (P(overall won) - P(overall lost)),

    where the overall is won with two rows or more (`overall_rule` two_rows) or, under
    more_rows, also with one row won and two tied. `bonus_paid`, `royalty_flat` and
    `max_one_royalty` change the bonus terms as the rules do; a setting holding a
    natural is worth the natural's value. Super, the opponent's naturals and fouls are
    not modelled.

    Args:
        body (SuggestRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SuggestResult
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
