export const VERSION = "0.1.0";
export const ENGINE_VERSION = `polar-guard/${VERSION}`;
