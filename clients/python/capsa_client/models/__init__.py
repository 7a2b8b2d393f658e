"""Contains all the data models used in inputs/outputs"""

from .arrangement import Arrangement
from .as_of import AsOf
from .as_of_source import AsOfSource
from .attempt import Attempt
from .attempt_list import AttemptList
from .attempt_outcome import AttemptOutcome
from .audit import Audit
from .audit_head import AuditHead
from .audit_record import AuditRecord
from .banting_hand import BantingHand
from .banting_hand_status import BantingHandStatus
from .banting_player import BantingPlayer
from .chain_verify import ChainVerify
from .commitment import Commitment
from .deal import Deal
from .deal_hands import DealHands
from .deal_list import DealList
from .deal_request import DealRequest
from .deal_status import DealStatus
from .difference import Difference
from .difference_absent import DifferenceAbsent
from .entry import Entry
from .entry_kind import EntryKind
from .entry_list import EntryList
from .evaluate_request import EvaluateRequest
from .evaluate_request_rules_type_1 import EvaluateRequestRulesType1
from .evaluate_request_rules_type_1_params import EvaluateRequestRulesType1Params
from .evaluation import Evaluation
from .evaluation_foul_reason_type_1 import EvaluationFoulReasonType1
from .evaluation_foul_reason_type_2_type_1 import EvaluationFoulReasonType2Type1
from .evaluation_foul_reason_type_3_type_1 import EvaluationFoulReasonType3Type1
from .evaluation_natural_type_1 import EvaluationNaturalType1
from .evaluation_natural_type_2_type_1 import EvaluationNaturalType2Type1
from .evaluation_natural_type_3_type_1 import EvaluationNaturalType3Type1
from .event import Event
from .event_data import EventData
from .event_list import EventList
from .event_subscription import EventSubscription
from .event_type import EventType
from .field_error import FieldError
from .game_list import GameList
from .game_player import GamePlayer
from .game_request import GameRequest
from .game_request_rules_type_1 import GameRequestRulesType1
from .game_request_rules_type_1_params import GameRequestRulesType1Params
from .game_state import GameState
from .game_state_status import GameStateStatus
from .get_v1_banting_games_status import GetV1BantingGamesStatus
from .get_v1_deals_status import GetV1DealsStatus
from .get_v1_events_type import GetV1EventsType
from .get_v1_ledger_summary_group_by import GetV1LedgerSummaryGroupBy
from .get_v1_susun_games_status import GetV1SusunGamesStatus
from .health import Health
from .hint import Hint
from .hint_combination_type_1 import HintCombinationType1
from .hint_combination_type_2_type_1 import HintCombinationType2Type1
from .hint_combination_type_3_type_1 import HintCombinationType3Type1
from .hint_move import HintMove
from .hint_request import HintRequest
from .history_entry import HistoryEntry
from .match import Match
from .match_game import MatchGame
from .match_game_list import MatchGameList
from .match_game_points import MatchGamePoints
from .match_game_request import MatchGameRequest
from .match_game_totals import MatchGameTotals
from .match_player import MatchPlayer
from .match_request import MatchRequest
from .match_request_rules_type_1 import MatchRequestRulesType1
from .match_request_rules_type_1_params import MatchRequestRulesType1Params
from .match_status import MatchStatus
from .move_request import MoveRequest
from .pair_result import PairResult
from .pair_result_bonus import PairResultBonus
from .pair_result_outcome import PairResultOutcome
from .pair_rows import PairRows
from .pair_stake import PairStake
from .play_evaluate_request import PlayEvaluateRequest
from .play_evaluate_request_rules_type_1 import PlayEvaluateRequestRulesType1
from .play_evaluate_request_rules_type_1_params import (
    PlayEvaluateRequestRulesType1Params,
)
from .play_evaluation import PlayEvaluation
from .play_evaluation_combination_type_1 import PlayEvaluationCombinationType1
from .play_evaluation_combination_type_2_type_1 import (
    PlayEvaluationCombinationType2Type1,
)
from .play_evaluation_combination_type_3_type_1 import (
    PlayEvaluationCombinationType3Type1,
)
from .player import Player
from .player_ledger import PlayerLedger
from .player_result import PlayerResult
from .player_result_natural_type_1 import PlayerResultNaturalType1
from .player_result_natural_type_2_type_1 import PlayerResultNaturalType2Type1
from .player_result_natural_type_3_type_1 import PlayerResultNaturalType3Type1
from .preset import Preset
from .preset_game import PresetGame
from .preset_list import PresetList
from .preset_params import PresetParams
from .preset_sources import PresetSources
from .problem import Problem
from .problem_type import ProblemType
from .ready import Ready
from .ready_replication import ReadyReplication
from .redeliver_request import RedeliverRequest
from .redelivered import Redelivered
from .replica_ready import ReplicaReady
from .replica_ready_status import ReplicaReadyStatus
from .round_document import RoundDocument
from .round_document_game import RoundDocumentGame
from .round_document_status import RoundDocumentStatus
from .round_list import RoundList
from .round_request import RoundRequest
from .round_request_rules_type_1 import RoundRequestRulesType1
from .round_request_rules_type_1_params import RoundRequestRulesType1Params
from .round_verify import RoundVerify
from .row import Row
from .row_category import RowCategory
from .rows import Rows
from .rules_echo import RulesEcho
from .rules_echo_params import RulesEchoParams
from .score_document import ScoreDocument
from .score_document_game import ScoreDocumentGame
from .signing_key import SigningKey
from .signing_key_algorithm import SigningKeyAlgorithm
from .signing_keys import SigningKeys
from .statement import Statement
from .statement_line import StatementLine
from .statement_line_kind import StatementLineKind
from .submission import Submission
from .submission_request import SubmissionRequest
from .submission_status import SubmissionStatus
from .suggest_request import SuggestRequest
from .suggest_request_rules_type_1 import SuggestRequestRulesType1
from .suggest_request_rules_type_1_params import SuggestRequestRulesType1Params
from .suggest_result import SuggestResult
from .suggest_result_natural_type_1 import SuggestResultNaturalType1
from .suggest_result_natural_type_2_type_1 import SuggestResultNaturalType2Type1
from .suggest_result_natural_type_3_type_1 import SuggestResultNaturalType3Type1
from .suggestion import Suggestion
from .summary import Summary
from .summary_row import SummaryRow
from .susun_game import SusunGame
from .susun_game_list import SusunGameList
from .susun_game_player import SusunGamePlayer
from .susun_game_request import SusunGameRequest
from .susun_game_request_rules_type_1 import SusunGameRequestRulesType1
from .susun_game_request_rules_type_1_params import SusunGameRequestRulesType1Params
from .susun_game_status import SusunGameStatus
from .susun_hand import SusunHand
from .susun_hand_status import SusunHandStatus
from .table_play import TablePlay
from .table_play_combination import TablePlayCombination
from .view_link import ViewLink
from .void import Void
from .void_request import VoidRequest
from .webhook import Webhook
from .webhook_created import WebhookCreated
from .webhook_list import WebhookList
from .webhook_patch import WebhookPatch
from .webhook_patch_events_item import WebhookPatchEventsItem
from .webhook_request import WebhookRequest
from .webhook_request_events_item import WebhookRequestEventsItem

__all__ = (
    "Arrangement",
    "AsOf",
    "AsOfSource",
    "Attempt",
    "AttemptList",
    "AttemptOutcome",
    "Audit",
    "AuditHead",
    "AuditRecord",
    "BantingHand",
    "BantingHandStatus",
    "BantingPlayer",
    "ChainVerify",
    "Commitment",
    "Deal",
    "DealHands",
    "DealList",
    "DealRequest",
    "DealStatus",
    "Difference",
    "DifferenceAbsent",
    "Entry",
    "EntryKind",
    "EntryList",
    "EvaluateRequest",
    "EvaluateRequestRulesType1",
    "EvaluateRequestRulesType1Params",
    "Evaluation",
    "EvaluationFoulReasonType1",
    "EvaluationFoulReasonType2Type1",
    "EvaluationFoulReasonType3Type1",
    "EvaluationNaturalType1",
    "EvaluationNaturalType2Type1",
    "EvaluationNaturalType3Type1",
    "Event",
    "EventData",
    "EventList",
    "EventSubscription",
    "EventType",
    "FieldError",
    "GameList",
    "GamePlayer",
    "GameRequest",
    "GameRequestRulesType1",
    "GameRequestRulesType1Params",
    "GameState",
    "GameStateStatus",
    "GetV1BantingGamesStatus",
    "GetV1DealsStatus",
    "GetV1EventsType",
    "GetV1LedgerSummaryGroupBy",
    "GetV1SusunGamesStatus",
    "Health",
    "Hint",
    "HintCombinationType1",
    "HintCombinationType2Type1",
    "HintCombinationType3Type1",
    "HintMove",
    "HintRequest",
    "HistoryEntry",
    "Match",
    "MatchGame",
    "MatchGameList",
    "MatchGamePoints",
    "MatchGameRequest",
    "MatchGameTotals",
    "MatchPlayer",
    "MatchRequest",
    "MatchRequestRulesType1",
    "MatchRequestRulesType1Params",
    "MatchStatus",
    "MoveRequest",
    "PairResult",
    "PairResultBonus",
    "PairResultOutcome",
    "PairRows",
    "PairStake",
    "PlayEvaluateRequest",
    "PlayEvaluateRequestRulesType1",
    "PlayEvaluateRequestRulesType1Params",
    "PlayEvaluation",
    "PlayEvaluationCombinationType1",
    "PlayEvaluationCombinationType2Type1",
    "PlayEvaluationCombinationType3Type1",
    "Player",
    "PlayerLedger",
    "PlayerResult",
    "PlayerResultNaturalType1",
    "PlayerResultNaturalType2Type1",
    "PlayerResultNaturalType3Type1",
    "Preset",
    "PresetGame",
    "PresetList",
    "PresetParams",
    "PresetSources",
    "Problem",
    "ProblemType",
    "Ready",
    "ReadyReplication",
    "RedeliverRequest",
    "Redelivered",
    "ReplicaReady",
    "ReplicaReadyStatus",
    "RoundDocument",
    "RoundDocumentGame",
    "RoundDocumentStatus",
    "RoundList",
    "RoundRequest",
    "RoundRequestRulesType1",
    "RoundRequestRulesType1Params",
    "RoundVerify",
    "Row",
    "RowCategory",
    "Rows",
    "RulesEcho",
    "RulesEchoParams",
    "ScoreDocument",
    "ScoreDocumentGame",
    "SigningKey",
    "SigningKeyAlgorithm",
    "SigningKeys",
    "Statement",
    "StatementLine",
    "StatementLineKind",
    "Submission",
    "SubmissionRequest",
    "SubmissionStatus",
    "SuggestRequest",
    "SuggestRequestRulesType1",
    "SuggestRequestRulesType1Params",
    "SuggestResult",
    "SuggestResultNaturalType1",
    "SuggestResultNaturalType2Type1",
    "SuggestResultNaturalType3Type1",
    "Suggestion",
    "Summary",
    "SummaryRow",
    "SusunGame",
    "SusunGameList",
    "SusunGamePlayer",
    "SusunGameRequest",
    "SusunGameRequestRulesType1",
    "SusunGameRequestRulesType1Params",
    "SusunGameStatus",
    "SusunHand",
    "SusunHandStatus",
    "TablePlay",
    "TablePlayCombination",
    "ViewLink",
    "Void",
    "VoidRequest",
    "Webhook",
    "WebhookCreated",
    "WebhookList",
    "WebhookPatch",
    "WebhookPatchEventsItem",
    "WebhookRequest",
    "WebhookRequestEventsItem",
)
