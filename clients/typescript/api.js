/* eslint-disable */
/**
 * The marketplace's typed API for Convex clients: the runtime object. Its
 * types are in api.d.ts.
 *
 * Generated from the services' operation declarations; do not edit.
 */
import { anyApi } from "convex/server";

/**
 * Every public operation, by its path: `api.<area>.<module>.<function>` is
 * a function reference named "<area>/<module>:<function>".
 */
export const api = anyApi;
