// The small zod pieces the library's entry points check their options with: objects, functions, tools, modes.
import * as z from "zod";
import { PERMISSION_MODES, type ModeHolder, type PermissionMode } from "../gate/context.js";
import type { AnyTool } from "../tools/define.js";

/** Any object, named in the error when it is not one. */
export function objectOf(what: string): z.ZodType<object> {
  return z.custom<object>((value) => typeof value === "object" && value !== null, `must be ${what}`);
}

/** Any function. */
export const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", "must be a function");

/** A permission mode, or a holder of one. */
export const modeSchema: z.ZodType<PermissionMode | ModeHolder> = z.union([
  z.enum(PERMISSION_MODES as [PermissionMode, ...PermissionMode[]], { error: `must be one of ${PERMISSION_MODES.join(", ")}` }),
  z.custom<ModeHolder>((value) => typeof value === "object" && value !== null && "mode" in value, "must be a mode or an object holding one ({ mode })"),
]);

/** A tool as `defineTool` makes it (a raw API tool definition or a JSON Schema input is not one). */
export function isTool(value: unknown): value is AnyTool {
  const tool = value as Partial<AnyTool> | null;
  return typeof tool === "object" && tool !== null && typeof tool.name === "string" && typeof tool.run === "function" && typeof tool.input?.safeParse === "function" && tool.access !== undefined;
}
