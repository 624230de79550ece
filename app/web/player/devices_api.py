"""The JSON API of devices and your data (issue 33): an extension of docs/api.md in its style
(same identity, CSRF, errors and rate limits as ``app.web.game.api``). Parse -> service -> render.

- ``GET /api/player/devices``, ``DELETE /api/player/devices/{device}``;
- ``POST /api/player/link-code`` (a one-time code for another device), ``POST /api/player/link``
  (this client joins the code's player: its cookie is replaced);
- ``GET /api/player/export`` (the signed data file), ``POST /api/player/import?replace=true``
  (that file as the body: it replaces this player's data, as the privacy page's form does).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Body, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr
from starlette.concurrency import run_in_threadpool

from app.services import devices as device_service
from app.services import portability
from app.web.game.api_models import StrictBody, error_responses
from app.web.site.deps import CallerDep, DeviceId, become_device, csrf_token_for
from app.web.site.rendering import base_url

router = APIRouter(prefix="/api/player", tags=["devices and your data"])


# What each error of these routes means (``error_responses``).
DEVICE_ERRORS = {
    403: "Missing or invalid CSRF token, or a cross-site request: nothing changed.",
    404: "No such device of this player.",
    410: "This device was removed from its player: its cookie is cleared, nothing changed.",
    422: "A malformed request, a code that is wrong, used or expired, or a device linked "
    "before this one (only itself and later devices may be removed): nothing changed.",
    413: "The body is larger than the data file's cap: nothing changed.",
    429: "Too many link codes made or entered: wait the Retry-After seconds.",
}


class DeviceOut(BaseModel):
    id: str = Field(description="The device's id (``first``: the player's first browser).")
    name: str = Field(description='From the browser\'s User-Agent, e.g. "Chromium on Linux".')
    linked_at: datetime
    last_seen: datetime = Field(description="To the hour.")
    this_device: bool
    removable: bool = Field(
        description="Whether this device may remove it: itself, or a device linked after it."
    )


class DevicesOut(BaseModel):
    devices: list[DeviceOut]


@router.get("/devices", response_model=DevicesOut, summary="The devices that reach this player")
def get_devices(request: Request, caller: CallerDep) -> DevicesOut:
    this = request.scope.get("state", {}).get("device_id", "")
    found = device_service.list_devices(caller.db, caller.player_id, this)
    return DevicesOut(devices=[DeviceOut.model_validate(d, from_attributes=True) for d in found])


@router.delete(
    "/devices/{device}",
    status_code=204,
    response_class=Response,
    responses=error_responses(403, 404, 410, 422, texts=DEVICE_ERRORS),
    summary="Remove a device: its cookie no longer reaches this player",
)
def delete_device(
    caller: CallerDep, this: DeviceId, device: Annotated[str, Path(min_length=1, max_length=24)]
) -> Response:
    device_service.remove_device(caller.db, caller.player_id, device, by=this)
    return Response(status_code=204)


class LinkCodeOut(BaseModel):
    code: str = Field(description="8 characters of Crockford's base32.")
    grouped: str = Field(description="The code as shown: ABCD-EFGH.")
    expires_at: datetime = Field(description="Ten minutes after it was made; it works once.")
    url: str = Field(description="This site's link page with the code filled in (its QR code).")


@router.post(
    "/link-code",
    status_code=201,
    response_model=LinkCodeOut,
    responses=error_responses(403, 429, texts=DEVICE_ERRORS),
    summary="A one-time code that links another device to this player",
)
def post_link_code(request: Request, caller: CallerDep) -> LinkCodeOut:
    issued = device_service.make_link_code(caller.db, caller.player_id)
    return LinkCodeOut(
        code=issued.code,
        grouped=issued.grouped,
        expires_at=issued.expires_at,
        url=device_service.link_url(base_url(request), issued.code),
    )


class LinkIn(StrictBody):
    model_config = ConfigDict(strict=True, extra="forbid")

    code: StrictStr = Field(max_length=40, description="The code, with or without its dash.")
    leave_data: StrictBool = Field(
        default=False,
        description="Required when this client's player has games or results: they stay with "
        "that player, which this client no longer reaches.",
    )


class LinkedOut(BaseModel):
    player: str
    csrf_token: str = Field(description="The new player's CSRF token.")


@router.post(
    "/link",
    response_model=LinkedOut,
    responses=error_responses(403, 422, 429, texts=DEVICE_ERRORS),
    summary="Join this client to the player of a link code (its cookie is replaced)",
)
def post_link(request: Request, caller: CallerDep, body: Annotated[LinkIn, Body()]) -> Response:
    this = request.scope.get("state", {}).get("device_id", "")
    linked = device_service.link_device(
        caller.db,
        caller.player_id,
        this,
        body.code,
        user_agent=request.headers.get("user-agent", "")[:512],
        leave_data=body.leave_data,
    )
    token = csrf_token_for(linked.player_id, device_id=linked.device_id)
    out = LinkedOut(player=linked.player_id, csrf_token=token)
    response = Response(out.model_dump_json(), media_type="application/json")
    become_device(request, response, linked.player_id, linked.device_id)
    return response


@router.get(
    "/export",
    summary="Everything kept about this player, as a signed JSON file",
    responses={200: {"content": {"application/json": {}}}},
)
def get_export(caller: CallerDep) -> Response:
    body = portability.export_player_data(caller.db, caller.player_id)
    return Response(body, media_type="application/json", headers={"Cache-Control": "no-store"})


class ImportedOut(BaseModel):
    games: int = Field(description="Games imported (saved and finished).")
    results: int = Field(description="Results (statistics events) imported.")
    race_entries: int = Field(description="Race entries imported.")
    left_out_race_entries: int = Field(
        description="Race entries left out: of races this site does not have, of a race still "
        "open, of another player (the file's), or of a race this player has an entry on here."
    )
    left_out_games: int = Field(0, description="Games of a race still open (left out).")
    kept_games: int = Field(
        0, description="Games of the file this player still has here: kept as they are here."
    )


@router.post(
    "/import",
    response_model=ImportedOut,
    responses=error_responses(403, 413, 422, 429, texts=DEVICE_ERRORS),
    summary="Replace this player's data with a data file's (the body: GET /api/player/export's)",
)
async def post_import(
    request: Request,
    caller: CallerDep,
    replace: Annotated[
        bool,
        Query(description="Must be true: the import replaces this player's games and results."),
    ] = False,
) -> ImportedOut:
    raw = await request.body()  # (bounded by the front's cap: MAX_IMPORT_BYTES for this path)
    summary = await run_in_threadpool(
        lambda: portability.import_player_data(
            caller.db,
            caller.player_id,
            raw,
            confirmed=replace,
            how_to_confirm="send replace=true to confirm",
        )
    )
    return ImportedOut.model_validate(summary, from_attributes=True)
