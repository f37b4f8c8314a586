"""Luck out of the numbers: AIVAT-style corrections for hold'em hands and sit & go tournaments
(one room; docs/luck.md).

AIVAT (Burch, Schmid, Moravčík, Morrill, Bowling: "AIVAT: A New Variance Reduction Technique
for Agent Evaluation in Imperfect Information Games", AAAI 2018) subtracts from a game's outcome,
at every chance event and at every decision of a player whose policy is known, the change of a
value function the event caused minus its expectation: each term has mean zero given the
history before it, so the corrected outcome keeps the actual one's mean.

* `holdemjax.luck.hands`: the check-down value of a hand (`check_down_values`), the deal's and
  each reveal's correction, a hand's luck from its decisions (`hand_luck`, `luck_of`);
* `holdemjax.luck.learned`: the chance term of any env's step under any value of whole states
  (`chance_term`: the learned value, a network's critic);
* `holdemjax.luck.rollout`: sit & go tournaments under a value that sees play: the rest of
  the hand played out by known policies (`rollout_step_luck`, `rollout_first_luck`);
* `holdemjax.luck.sng`: sit & go tournaments: `tournament_value`, the luck of a deal, of a
  decision and of an env step by player id (`step_luck`, beside `env.step`), and the action
  corrections of known policies (`action_luck`).

Every public name of both is here: ``from holdemjax import luck; luck.step_luck(...)``.
"""

from holdemjax.luck.hands import (
                                  DISTINCT,
                                  PREFLOP_SAMPLES,
                                  VISIBLE,
                                  Reveals,
                                  Value,
                                  check_down_values,
                                  chips,
                                  deal_correction,
                                  hand_luck,
                                  icm_value,
                                  luck_of,
                                  no_reveals,
                                  note,
                                  reveal_correction,
)
from holdemjax.luck.learned import StateValue, chance_term
from holdemjax.luck.rollout import (
                                  ROLLOUTS,
                                  Policy,
                                  games_rollout_first_luck,
                                  games_rollout_step_luck,
                                  rollout_first_luck,
                                  rollout_step_luck,
                                  rollout_value,
                                  settled_value,
)
from holdemjax.luck.sng import (
                                  ACTION_EVENT,
                                  DEAL_EVENT,
                                  EVENTS,
                                  action_luck,
                                  action_terms,
                                  action_values,
                                  blinds_table,
                                  dealt_luck,
                                  decision_luck,
                                  first_luck,
                                  games_chance_luck,
                                  games_first_luck,
                                  games_step_luck,
                                  step_luck,
                                  tournament_value,
)

__all__ = ["Value", "chips", "icm_value", "check_down_values", "reveal_correction",
           "deal_correction", "Reveals", "no_reveals", "note", "luck_of", "hand_luck",
           "VISIBLE", "PREFLOP_SAMPLES", "DISTINCT", "tournament_value", "blinds_table",
           "dealt_luck", "decision_luck", "action_values", "action_terms", "action_luck",
           "first_luck", "step_luck", "games_first_luck", "games_step_luck", "EVENTS",
           "DEAL_EVENT", "ACTION_EVENT", "StateValue", "chance_term", "games_chance_luck",
           "Policy", "ROLLOUTS", "rollout_value", "settled_value", "rollout_step_luck",
           "rollout_first_luck", "games_rollout_first_luck", "games_rollout_step_luck"]
