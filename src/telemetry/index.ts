// miniclaw/telemetry: turns as OpenTelemetry spans through @opentelemetry/api, and the command line's OTLP export (an SDK the user installs).
import { trace } from "@opentelemetry/api";
import { ConfigError } from "../errors.js";

export { traceTurns, type TraceOptions } from "./spans.js";

/** A running export: spans go out in batches; `shutdown` sends what is left (call it before the process exits). */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

const PACKAGES = "@opentelemetry/sdk-trace-base @opentelemetry/exporter-trace-otlp-http";

/**
 * Registers a tracer provider that exports to `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces` (OTLP over
 * HTTP with JSON; `OTEL_EXPORTER_OTLP_HEADERS` as the exporter reads it), or undefined when neither is set. The two packages are optional peers, not
 * dependencies (with what they pull in, about 28 MB that every install would carry): throws a ConfigError naming them when they are missing.
 */
export async function startOtlpExport(env: Record<string, string | undefined>): Promise<OtlpExport | undefined> {
  const base = env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim();
  const url = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]?.trim() || (base && `${base.replace(/\/+$/, "")}/v1/traces`);
  if (!url) return undefined;
  const [sdk, otlp] = await Promise.all([import("@opentelemetry/sdk-trace-base"), import("@opentelemetry/exporter-trace-otlp-http")]).catch((error: unknown) => {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK cannot be loaded (${error instanceof Error ? error.message.split("\n")[0] : String(error)}): npm install ${PACKAGES}`);
  });
  const processor = new sdk.BatchSpanProcessor(new otlp.OTLPTraceExporter({ url }));
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [processor] });
  trace.setGlobalTracerProvider(provider);
  return { shutdown: () => provider.shutdown().catch(() => undefined) };
}
