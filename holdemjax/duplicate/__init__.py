"""Duplicate poker: identical deals for every participant, reference tiers, seat rotation.

Modules (imported on use, so importing the package costs nothing):

* `spec`: a match's definition (`MatchSpec`), its deals, bot keys and seed commitment;
* `match`: one line played hand by hand through the rules engine and the host hand driver of
  `holdemjax.series.hand` (`Hand`, `play_line`), the registered bots (`bot_names`); it
  re-exports `spec`;
* `policy`: a WebAssembly policy in the hero seat (the series host's clock and reply rules);
* `play`: a person in the hero seat, in the terminal;
* `store`: the one sealed-aware repository over the SQLite match store and the match's life
  (open, sealed, closed); `seat` (one's own line, dealt with its key), `doors` (share links and
  invitations), `schema` (the layout), `verify` (commitment, decks, the bots replayed);
* `scores`, `review`, `style`, `report`: what a closed match shows;
* `tiers`, `draws`: the reference bots and their coordinate-addressed draws (their constants,
  `holdemjax.bots.tier_params`, are shared with the JAX tiers `holdemjax.bots.tiers`);
* `rotation`: seat-rotation evaluation of bots;
* `service`, `pages`, `live`: ``holdemjax duplicate serve``, the web service (FastAPI), its
  pages and the lines played request by request;
* `cli`, `keyring`: ``holdemjax duplicate ...`` and the keys of the lines it joined.

docs/duplicate.md explains the numbers.
"""
