"""Duplicate poker: identical deals for every participant, reference tiers, seat rotation.

Modules (imported on use, so importing the package costs nothing):

* `spec`: a match's definition (`MatchSpec`), its deals, bot keys and seed commitment;
* `match`: one line played hand by hand through the rules engine and the host hand driver of
  `holdemjax.series.hand` (`Hand`, `play_line`), the registered bots (`bot_names`); it
  re-exports `spec`;
* `policy`: a WebAssembly policy in the hero seat (the series host's clock and reply rules);
* `play`: a person in the hero seat, in the terminal;
* `store`: the SQLite match store, the match's life (open, sealed, closed) and `verify`;
* `scores`, `review`, `style`, `report`: what a closed match shows;
* `tiers`, `tier_params`, `draws`: the reference bots, their constants and their
  coordinate-addressed draws;
* `rotation`: seat-rotation evaluation of bots;
* `cli`: ``holdemjax duplicate ...``.

docs/duplicate.md explains the numbers.
"""
