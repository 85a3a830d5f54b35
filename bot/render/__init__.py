"""What players read: texts in the message catalogues, keyboards, the sheet as text and picture."""
