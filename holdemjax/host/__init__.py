"""The host-side table, apart from the wasm sandbox: the one hand driver (`hand.HostHand`) and
the packed state of the engine's programs (`packing`), the protocol's rules half (`protocol`:
wire codes, the ``legal`` block, the ``act`` message), the one legality check of an exact
action (`legal`) and the one hand loop every host plays its hands through (`loop.play_hand`).

Modules are imported by name (``from holdemjax.host import legal``); nothing is re-exported.
"""
