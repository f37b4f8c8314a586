"""The sit & go's page: a FastAPI app around one `sitgo.SitGo`. ``GET /`` is the duplicate
service's play page (its template ``play.html`` under ``templates/sitgo.html``, its script and
styles from `holdemjax.duplicate.pages.static_file`), pointed at this app's JSON API: ``GET
/api`` (the state) and ``POST /api/act`` (``{"decision", "action", "amount"}``), answered as
the service answers a line (`holdemjax.duplicate.live`). At the end ``/viewer`` is the
tournament's viewer page and ``/replay.json`` its replay file."""

from __future__ import annotations

import contextlib

from holdemjax.duplicate.pages import static_file
from holdemjax.play.sitgo import SitGo
from holdemjax.series.html import environment
from holdemjax.series.replay import REPLAY_NAME, VIEWER_NAME

__all__ = ["create_app", "serve", "page"]


def page(game: SitGo) -> str:
    """The play page of ``game`` (the duplicate service's, with this app's API)."""
    bots = ", ".join(sorted(set(game.names[1:])))
    data = {"api": "/api", "match": "sit & go", "name": "you", "hero": 0,
            "bots": game.names[1:], "pause": False, "clockFor": "this decision"}
    return environment("holdemjax.play", "holdemjax.duplicate").get_template(
        "sitgo.html").render(title="sit & go", data=data, seed=game.seed, bots=bots,
                             st={"match": "sit & go"}, name="you")


def create_app(game: SitGo):
    """The app of ``game`` (started with the app, closed after it)."""
    from fastapi import Body, FastAPI, HTTPException
    from fastapi.responses import FileResponse, HTMLResponse

    from holdemjax.play.sitgo import Refused

    @contextlib.asynccontextmanager
    async def lifespan(app):
        game.start()
        try:
            yield
        finally:
            game.close()

    app = FastAPI(title="holdemjax play", lifespan=lifespan)

    @app.get("/", response_class=HTMLResponse)
    def index():
        game.reset_log()
        return page(game)

    @app.get("/api")
    def state():
        return game.state()

    @app.post("/api/act")
    def act(decision: int = Body(...), action: str = Body(...), amount: int = Body(0)):
        try:
            return game.act(decision, action, amount)
        except Refused as exc:
            raise HTTPException(409, str(exc)) from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None

    def finished(name: str):
        path = game.out / name
        if not game.done or not path.is_file():
            raise HTTPException(404, f"{name} is written when the tournament ends")
        return FileResponse(path)

    @app.get("/viewer")
    def viewer():
        return finished(VIEWER_NAME)

    @app.get("/replay.json")
    def replay():
        return finished(REPLAY_NAME)

    @app.get("/static/{name}")
    def static(name: str):
        return static_file(name)

    return app


def serve(game: SitGo, *, host: str = "127.0.0.1", port: int = 8053, announce=print) -> int:
    """Run the page with uvicorn until interrupted."""
    import uvicorn

    announce(f"holdemjax play: a sit & go on http://{host}:{port}/ (Ctrl-C stops); the replay "
             f"goes to {game.out}")
    uvicorn.run(create_app(game), host=host, port=port, log_level="warning")
    return 0
