// How long stored reports are kept, as the pages say it.
export const REPORT_RETENTION_DAYS_TEXT = '30 days';
