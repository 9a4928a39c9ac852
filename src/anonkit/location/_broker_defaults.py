"""The broker's start-up defaults, in a module that imports nothing, so that ``anonkit broker``'s
options can show them without loading FastAPI."""

#: where the broker listens unless told otherwise: loopback only (``--listen``)
DEFAULT_LISTEN = "127.0.0.1:8700"
#: seconds a connection may stay without a whole request head (``--idle-timeout``)
DEFAULT_IDLE_TIMEOUT = 5.0
#: the largest difference (seconds) between a body's ``t`` and the broker's wall clock; with the
#: simulation clock, the largest step forward of the simulated time (``--max-skew``)
DEFAULT_MAX_SKEW = 30.0
