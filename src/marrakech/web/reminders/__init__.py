"""Email reminders (issue 25, item 3; docs/playing.md, "Reminders"; docs/deploy.md,
"Email reminders").

- :mod:`~marrakech.web.reminders.settings`: ``--smtp-url``, ``--mail-from``,
  ``--public-url`` and the reminders' timing;
- :mod:`~marrakech.web.reminders.service`: addresses, links, mutes and the outbox;
- :mod:`~marrakech.web.reminders.mail`: the messages, in English and French;
- :mod:`~marrakech.web.reminders.senders`: delivery by email (SMTP);
- :mod:`~marrakech.web.reminders.webpush` and :mod:`~marrakech.web.reminders.push_devices`:
  Web Push notifications (issue 37);
- :mod:`~marrakech.web.reminders.hooks`: what the rooms tell the reminders.

This module imports nothing, so that the rooms may import the hooks cheaply.
"""
