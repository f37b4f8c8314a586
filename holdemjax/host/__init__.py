"""The host-side table, apart from the wasm sandbox: the one legality check of an exact action
(`legal`) and the one hand loop every host plays its hands through (`loop.play_hand`).

Modules are imported by name (``from holdemjax.host import legal``); nothing is re-exported.
"""
