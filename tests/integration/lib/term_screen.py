# A minimal terminal for the tests that drive orchestrate on a pseudo-terminal: printable text,
# \r, \n, \b, CSI n F (up n lines, to column 1), CSI J (erase below), CSI K (erase to the line's end),
# lines wrapping at the width. Enough for what the live table writes; `text()` is the screen.
import re
class Screen:
    def __init__(self, width=100):
        self.lines, self.row, self.col, self.width = [""], 0, 0, width
    def _put(self, ch):
        if self.col >= self.width:  # a terminal wraps when the next character comes, not before
            self.col = 0
            self._down()
        line = self.lines[self.row].ljust(self.col)
        self.lines[self.row] = line[:self.col] + ch + line[self.col + 1:]
        self.col += 1
    def _down(self):
        self.row += 1
        if self.row == len(self.lines):
            self.lines.append("")
    def feed(self, data):
        i = 0
        while i < len(data):
            m = re.match(r"\x1b\[(\d*)([A-Za-z])", data[i:])
            if m:
                n, op = int(m.group(1) or 1), m.group(2)
                if op == "F":
                    self.row, self.col = max(0, self.row - n), 0
                elif op == "J":
                    self.lines[self.row] = self.lines[self.row][:self.col]
                    del self.lines[self.row + 1:]
                elif op == "K":
                    self.lines[self.row] = self.lines[self.row][:self.col]
                i += m.end()
                continue
            c = data[i]
            if c == "\r": self.col = 0
            elif c == "\n": self._down()
            elif c == "\b": self.col = max(0, self.col - 1)
            elif c >= " ": self._put(c)
            i += 1
    def text(self):
        return "\n".join(l.rstrip() for l in self.lines)
