// miniclaw/telemetry: turns as OpenTelemetry spans through @opentelemetry/api, and the command line's OTLP export.
export { traceTurns, type TraceOptions } from "./spans.js";
export { startOtlpExport, type OtlpExport } from "./otlp.js";
