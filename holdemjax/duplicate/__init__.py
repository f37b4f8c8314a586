"""Duplicate poker: identical deals for every participant, reference tiers, seat rotation.

Modules (imported on use, so importing the package costs nothing):

* `match`: a match's definition (`MatchSpec`), its deals and bot keys, one line played hand by
  hand through the rules engine (`play_line`), the registered bots (`bot_names`);
* `policy`: a WebAssembly policy in the hero seat (the series host's clock and reply rules);
* `play`: a person in the hero seat, in the terminal;
* `store`: the SQLite match store, the match's life (open, sealed, closed) and `verify`;
* `scores`, `review`, `style`, `report`: what a closed match shows;
* `tiers`, `draws`: the reference bots and their coordinate-addressed draws;
* `rotation`: seat-rotation evaluation of bots;
* `cli`: ``holdemjax duplicate ...``.

docs/duplicate.md explains the numbers.
"""
