"""Leagues: a pool of WebAssembly policies, certified, matched at random but balanced, played
series by series (on this machine or a Ray cluster) to one leaderboard (docs/league.md).

Modules (imported on use): `pool` (the bots and their certification), `matchmaking` (line-ups
and series seeds), `play` (the jobs and the executors: inline, process pool, Ray),
`leaderboard` (scores, standard errors, places, faults, the OpenSkill rating, the HUD),
`page` (the HTML leaderboard), `run` (the league folder, resumable, and its stages), `cli`
(``holdemjax league``). Every series is played by `holdemjax.series.runner`.
"""
