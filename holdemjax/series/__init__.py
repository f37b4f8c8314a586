"""The series host: WebAssembly policies (`wasm`), their messages (`protocol`), one series (`runner`).

The contract with policy authors is ``PROTOCOL.md`` in this folder. Nothing here is imported by
``holdemjax`` itself, so the library works without wasmtime installed.
"""
