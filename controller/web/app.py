"""`create_app(board, settings)`: the FastAPI app around one running `BoardService`.

The lifespan starts and stops the board (camera, LEDs, tasks); nothing starts at import. Domain
errors
map to HTTP here, once: bad input 400 (422 when the schema itself catches it), not allowed now 409,
unknown thing 404, a part missing or down 503.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from controller import __version__
from controller.service import errors as service_errors
from controller.service.board import BoardService
from controller.service.config import Settings
from controller.service.token import load_or_create_token
from controller.service.virtual_board import VirtualBoardError
from controller.store import JournalError, UnknownGameError
from controller.tak import IllegalPlyError, InvalidPlyError, TakError
from controller.web import models
from controller.web.limits import BodySizeLimit
from controller.web.routers import camera, captures, events, game, health, leds, library, sim

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"

# Most specific first: the first matching class decides the status.
ERROR_STATUS: list[tuple[type[Exception], int]] = [
    (UnknownGameError, 404),
    (service_errors.NotFoundError, 404),
    (service_errors.NoGameError, 409),
    (service_errors.GameOverError, 409),
    (service_errors.NothingPendingError, 409),
    (service_errors.QuestionWaitingError, 409),
    (service_errors.WrongMoveError, 409),
    (service_errors.UnavailableError, 503),
    (service_errors.BadRequestError, 400),
    (InvalidPlyError, 400),
    (IllegalPlyError, 409),
    (VirtualBoardError, 409),
    (JournalError, 409),
    (TakError, 400),
]

# Documented on every operation, so clients (and the schema fuzzer) know the error shape.
ERROR_RESPONSES: dict[int | str, dict] = {
    code: {"model": models.Problem, "description": what}
    for code, what in [
        (400, "bad input the schema cannot catch (a malformed ply, crossing corners ...)"),
        (401, "no token sent: `Authorization: Bearer <token>`"),
        (403, "wrong token"),
        (404, "no such game, candidate or plies to take back"),
        (409, "not possible now (no game, game over, illegal ply, nothing pending ...)"),
        (413, "request body too large"),
        (503, "a part of the board is missing or down (camera, LEDs, hint engine)"),
    ]
}


def _link_error_types() -> list[tuple[type[Exception], int]]:
    try:
        from controller.leds import LinkError  # the LED link's own family
    except ImportError:
        return []
    return [(LinkError, 503)]


def create_app(board: BoardService, settings: Settings, *, token: str | None = None) -> FastAPI:
    if token is None:
        token, _ = load_or_create_token(settings.data_path, settings.token)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await board.start()
        try:
            yield
        finally:
            await board.stop()

    app = FastAPI(
        title="takboard",
        version=__version__,
        summary="A real Tak board, recorded by a camera, answered by LEDs.",
        description="Reading is open. Anything that changes state needs "
        "`Authorization: Bearer <token>` (printed at first start, kept in `<data dir>/token`). "
        "Live events: WebSocket `/api/events`.",
        lifespan=lifespan,
    )
    app.state.board = board
    app.state.settings = settings
    app.state.token = token

    status_of = [*_link_error_types(), *ERROR_STATUS]

    async def domain_error(request: Request, exc: Exception) -> JSONResponse:
        for kind, code in status_of:
            if isinstance(exc, kind):
                log.info("%s %s -> %d: %s", request.method, request.url.path, code, exc)
                return JSONResponse({"detail": str(exc), "error": type(exc).__name__},
                                    status_code=code)
        raise exc

    for kind, _code in status_of:
        app.add_exception_handler(kind, domain_error)

    for module in (game, library, camera, captures, leds, events, health):
        app.include_router(module.router, responses=ERROR_RESPONSES)
    if board.virtual_board is not None:
        app.include_router(sim.router, responses=ERROR_RESPONSES)

    @app.middleware("http")
    async def security_headers(request: Request, call_next):
        response = await call_next(request)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response

    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
