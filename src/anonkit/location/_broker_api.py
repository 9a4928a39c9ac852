"""The location broker's HTTP bodies (pydantic models) and the limits every body is held to.

Every number a client sends is finite (``allow_inf_nan=False``: ``NaN``, ``Infinity`` and ``1e400``,
which JSON parsers turn into infinity, are a 422), every text has a longest length, and a time has a
largest value, so no body can make the broker's state unbounded or its answers unserialisable.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

#: the only fields that ever leave the broker, in this order (``Forwarded.public()``)
PUBLIC_FIELDS = ("t", "x0", "y0", "x1", "y1", "t0", "t1", "payload")
#: the longest payload accepted (characters)
MAX_PAYLOAD = 65_536
#: the largest body accepted (bytes): a payload of MAX_PAYLOAD characters each written as a JSON
#: surrogate-pair escape (12 bytes) fits, with room for the other fields; larger is a 413
MAX_BODY_BYTES = 1_048_576
#: the longest subject id (characters)
MAX_SUBJECT = 256
#: the largest time accepted (seconds; about the year 5138 in Unix seconds): a time near the float's
#: maximum would make a deadline that never passes
MAX_TIME = 1e11

Status = Literal["queued", "forwarded", "failed", "pending", "held", "dropped", "lost"]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Subject = Annotated[str, Field(min_length=1, max_length=MAX_SUBJECT)] | int
Time = Annotated[float, Field(allow_inf_nan=False, ge=0, le=MAX_TIME)]


class UpdateIn(BaseModel):
    """The caller's position at time ``t`` (the subject is the one its token names)."""

    model_config = ConfigDict(extra="forbid")

    subject: Subject | None = Field(None, description="The caller's subject id (text or integer; 7 and \"7\" "
                                                      "are one subject). Optional: the bearer token names the "
                                                      "subject, and a different id here is a 403. Never leaves "
                                                      "the broker.")
    x: Finite = Field(description="Exact position; must lie in the broker's area. Never leaves the broker.")
    y: Finite = Field(description="Exact position; must lie in the broker's area. Never leaves the broker.")
    t: Time | None = Field(None, description="Time in seconds. With the wall clock (the default) it is only "
                                            "checked: it must be within --max-skew of the broker's clock, and "
                                            "the message is stamped with the broker's clock. With "
                                            "--simulation-clock it is required and is the message's time.")


class RequestIn(UpdateIn):
    """A service request at the caller's position; also updates the caller's position.

    ``k``, ``max_area`` and ``max_delay`` may only make the request stricter than the broker's
    policy (a larger k, a smaller area, a shorter delay); a weaker value is a 422 naming the field.
    """

    payload: str = Field("", max_length=MAX_PAYLOAD, description="Forwarded to the service as given.")
    k: int | None = Field(None, ge=1, description="Subjects the cloaked box (or interval) must hold, the "
                                                  "requester included: at least the broker's --k (default).")
    max_area: Finite | None = Field(None, gt=0, description="The largest box the requester accepts: at most "
                                                           "the broker's --max-area (default).")
    max_delay: Finite | None = Field(None, ge=0, description="The longest wait (seconds) for temporal cloaking: "
                                                            "at most the broker's --max-delay (default).")
    on_fail: Literal["hold", "drop"] | None = Field(None, description="What happens when no cloaking serves "
                                                                      "the request (default: --on-fail); "
                                                                      "either way it is never forwarded.")


class SubjectIn(BaseModel):
    """A subject to register (operator only)."""

    model_config = ConfigDict(extra="forbid")

    subject: Subject = Field(description="The subject's id (text or integer; 7 and \"7\" are one subject).")


class SubjectOut(BaseModel):
    subject: str = Field(description="The subject's id as the broker keeps it (text).")
    token: str = Field(description="The subject's bearer token: send it as 'Authorization: Bearer TOKEN' with "
                                   "every update and request. The same subject always gets the same token.")


class Box(BaseModel):
    x0: float
    y0: float
    x1: float
    y1: float


class Interval(BaseModel):
    t0: float
    t1: float


class UpdateOut(BaseModel):
    t: float = Field(description="The time the update was recorded at.")


class RequestOut(BaseModel):
    """What the requester learns about its own request (never another subject's)."""

    id: str = Field(description="An unguessable id for GET /requests/{id}.")
    status: Status = Field(description="pending: waiting for temporal cloaking; queued: cloaked and waiting "
                                       "for the service to accept it; forwarded: the service accepted it; "
                                       "failed: cloaked, but the service did not accept it after the retries "
                                       "(not sent again); held / dropped: no cloaking served it (never "
                                       "forwarded); lost: the broker died while it was pending, or its queued "
                                       "message could not be read back (never forwarded).")
    t: float | None = Field(None, description="The time the request was recorded at.")
    box: Box | None = Field(None, description="The cloaked box sent to the service (when queued, forwarded or "
                                              "failed).")
    interval: Interval | None = Field(None, description="The cloaked time interval sent (as the box).")
    deadline: float | None = Field(None, description="When a pending request is held or dropped at the latest.")


class Health(BaseModel):
    ok: bool
    subjects: int = Field(description="Distinct subjects with a known position.")
    pending: int = Field(description="Requests waiting for temporal cloaking.")
    queued: int = Field(description="Requests whose status is queued: cloaked, not yet accepted by the service.")
    time: float | None = Field(description="The broker's time (seconds); none before the first message of a "
                                           "simulation clock.")
