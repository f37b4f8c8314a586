"""Duplicate poker: identical deals for every participant, reference tiers, seat rotation.

Modules (imported on use, so importing the package costs nothing):

* `spec`: a match's definition (`MatchSpec`), its deals, bot keys and seed commitment;
* `match`: one line played hand by hand through the rules engine and the host hand driver of
  `holdemjax.host.hand` (`Hand`, `play_line`), the registered bots (`bot_names`); it
  re-exports `spec`;
* `policy`: a WebAssembly policy in the hero seat (the series host's clock and reply rules);
* `play`: a person in the hero seat, in the terminal;
* `store`: the one sealed-aware repository over the SQLite match store and the match's life
  (open, sealed, closed), the only module that queries it; `records` (what it returns), `seat`
  (one's own line, dealt with its key), `doors` (share links and invitations), `database` (the
  file, its connections and transactions), `schema` (the layout), `verify` (commitment, decks,
  the bots replayed); `references` plays the reference lines (the store never plays);
* `scores`, `review`, `style`, `report`: what a closed match shows;
* `tiers`, `draws`: the reference bots and their coordinate-addressed draws (their constants,
  `holdemjax.bots.tier_params`, are shared with the JAX tiers `holdemjax.bots.tiers`);
* `rotation`: seat-rotation evaluation of bots;
* `service`, `routes`, `lines`, `pages`, `live`, `entrants`: ``holdemjax duplicate serve``,
  the web service (FastAPI): the app, its routes, the line service (one lock per line), its
  pages, the lines played request by request, the operator's entrants and hero loaders;
* `cli`, `keyring`: ``holdemjax duplicate ...`` and the keys of the lines it joined.

docs/duplicate.md explains the numbers.
"""
