// The command line's telemetry: turns exported as spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing of it is loaded otherwise.
import type { EventSink } from "../types.js";

/** Spans of the command's turns: one sink per `scope` (a cron job's runs may overlap another's), and `shutdown` to send what is left. */
export interface CliTelemetry {
  sink(scope?: string): EventSink;
  shutdown(): Promise<void>;
}

/** Starts the export when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, else undefined. Throws ConfigError when the SDK is not installed. */
export async function startCliTelemetry(env: Record<string, string | undefined>): Promise<CliTelemetry | undefined> {
  if (!env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim() && !env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim()) return undefined;
  const { startOtlpExport, traceTurns } = await import("../telemetry/index.js");
  const exported = await startOtlpExport(env);
  if (!exported) return undefined;
  const sinks = new Map<string, EventSink>();
  const content = env["MINICLAW_OTEL_CONTENT"] === "1";
  return {
    sink(scope = "") {
      if (!sinks.has(scope)) sinks.set(scope, traceTurns({ content }));
      return sinks.get(scope)!;
    },
    shutdown: exported.shutdown,
  };
}
