"""Mail: the accounts Errands may use (``accounts``), reading a mailbox over IMAP
(``imap``), sending over SMTP (``smtp``) and how a message is shown to a run
(``messages``). Plain asyncio; no Qt."""
