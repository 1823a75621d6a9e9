//! AI loops: sensor, controller, actuator, orchestrator; one git commit per iteration.
