"""Dependencies handlers declare as parameters: the board, the settings, and the control token."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from controller.service.board import BoardService
from controller.service.config import Settings
from controller.service.token import token_matches


def get_board(request: Request) -> BoardService:
    return request.app.state.board


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


_bearer = HTTPBearer(auto_error=False, description="the token printed on first start "
                     "(also in <data dir>/token)")


def require_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """401 when no token was sent (the client should ask for one), 403 when it is wrong."""
    if credentials is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "this changes the game: send Authorization: Bearer <token> "
            "(the token is printed at first start and kept in <data dir>/token)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if not token_matches(request.app.state.token, credentials.credentials):
        raise HTTPException(status.HTTP_403_FORBIDDEN, "wrong token")
    return credentials.credentials


BoardDep = Annotated[BoardService, Depends(get_board)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
ControlToken = Annotated[str, Depends(require_token)]
