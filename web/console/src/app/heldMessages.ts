// The status of a statement's earning while it is held (getStatement's
// "held", until its release), in English and Arabic; spread into the app's
// tables (app/messages.ts).
export const heldEn = {
  "status.held": "Held",
};

export const heldAr: Record<keyof typeof heldEn, string> = {
  "status.held": "محتجز",
};
