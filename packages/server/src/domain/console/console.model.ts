/** The roles of a partner's people in the console (operators are not a role of a partner). */
export const CONSOLE_ROLES = ['partner_admin', 'developer', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];
