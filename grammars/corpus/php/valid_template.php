<?php $items = ['a' => 1, 'b' => 2]; ?>
<!DOCTYPE html>
<html>
<body>
  <ul>
  <?php foreach ($items as $key => $value): ?>
    <li><?= htmlspecialchars($key) ?>: <?= $value ?></li>
  <?php endforeach; ?>
  </ul>
  <?php if (count($items) > 1) { echo "<p>many</p>"; } ?>
</body>
</html>
